"""Java and JavaScript literals, read the way BFCL's AST checker reads them.

In BFCL's Java and JavaScript categories every argument arrives as a *string*
holding source code (``"new int[]{2, 7}"``, ``"true"``, ``"'abc'"``) while the
possible answers hold JSON values (``[2, 7]``, ``true``, ``"abc"``). Before
comparing, BFCL converts the string according to the parameter's declared
type; text that does not look like that type stays a string (and then fails
the type check). These functions reproduce that conversion, including its
shallow, pattern-based collection parsing (a ``,`` inside a string element
splits it; a Java ``String[]`` keeps its elements' quotes), because the goal
is to reproduce BFCL's verdicts, not to parse Java.

>>> java_value("new ArrayList<>(Arrays.asList(101L, 202L))", "ArrayList", "long")
[101, 202]
>>> js_value("[1.5, 2]", "array", "float")
[1.5, 2.0]
>>> java_value("3.5", "float")  # a Java float literal needs its f suffix
'3.5'
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["JAVA_TYPES", "JS_TYPES", "java_value", "js_value"]

#: Declared Java type -> the Python type the converted value must have.
JAVA_TYPES: dict[str, type] = {
    "byte": int,
    "short": int,
    "integer": int,
    "long": int,
    "float": float,
    "double": float,
    "boolean": bool,
    "char": str,
    "String": str,
    "any": str,
    "Array": list,
    "ArrayList": list,
    "Queue": list,
    "Stack": list,
    "Set": set,
    "HashMap": dict,
    "Hashtable": dict,
}
#: Declared JavaScript type -> the Python type the converted value must have.
JS_TYPES: dict[str, type] = {
    "String": str,
    "any": str,
    "integer": int,
    "Bigint": int,
    "float": float,
    "Boolean": bool,
    "array": list,
    "dict": dict,
}

# Anchored with ^...$ and used with .match, as BFCL does: "$" also matches
# before a final newline, so "5\n" reads as an integer.
_INT = re.compile(r"^-?\d+$")
_JAVA_FLOAT = re.compile(r"^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?[fF]$")
_JAVA_DOUBLE = re.compile(r"^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$")
_JAVA_LONG = re.compile(r"^-?\d+[lL]$")
_JS_FLOAT = re.compile(r"^-?\d+(?:\.\d+)?$")
_JS_BIGINT = re.compile(r"^-?\d+n$")
_LONG_SUFFIX = re.compile(r"[lL]$")
_FLOAT_SUFFIX = re.compile(r"[fF]$")

# Java collections, matched anywhere in the text (BFCL searches, it does not anchor).
_AS_LIST = re.compile(r"new\s+ArrayList<\w*>\(Arrays\.asList\((.+?)\)\)")
_ADD_BLOCK = re.compile(r"new\s+ArrayList<\w*>\(\)\s*\{\{\s*(.+?)\s*\}\}", re.DOTALL)
_ADD_CALL = re.compile(r"add\((.+?)\)")
_EMPTY_LIST = re.compile(r"new\s+ArrayList<\w*>\(\)")
_ARRAY = re.compile(r"new\s+\w+\[\]\s*\{(.*?)\}")
_MAP_BLOCK = re.compile(r"new\s+HashMap<.*?>\s*\(\)\s*\{\s*\{?\s*(.*?)\s*\}?\s*\}", re.DOTALL)
_PUT_CALL = re.compile(r"put\(\"(.*?)\",\s*(.*?)\)")
_EMPTY_MAP = re.compile(r"new\s+HashMap<.*?>\s*\(\)")

# JavaScript collections, matched at the start of the text.
_JS_2D = re.compile(
    r"\[\s*\[.*?\]\s*(?:,\s*\[.*?\]\s*)*\]|\bnew\s+Array\(\s*\[.*?\]\s*(?:,\s*\[.*?\]\s*)*\)"
)
_JS_1D = re.compile(r"\[(.*?)\]|\bnew\s+Array\((.*?)\)")
_JS_INNER = re.compile(r"\[(.*?)\]")
_JS_OBJECT = re.compile(r"\{(.*?)\}")
_JS_PAIR = re.compile(r"([^:]+):\s*(.*?)(?:,\s*(?=[^,]+:)|$)")


def java_value(text: str, declared: str, items: str | None = None) -> Any:
    """Convert Java source text for a parameter of type ``declared``.

    Unknown declared types and Set/Hashtable/Queue/Stack (which BFCL cannot
    convert either) return the text unchanged.
    """
    if declared in ("byte", "short", "integer"):
        return int(text) if _INT.match(text) else text
    if declared == "long":
        return int(_LONG_SUFFIX.sub("", text)) if _JAVA_LONG.match(text) else text
    if declared == "float":
        return float(_FLOAT_SUFFIX.sub("", text)) if _JAVA_FLOAT.match(text) else text
    if declared == "double":
        return float(text) if _JAVA_DOUBLE.match(text) else text
    if declared == "boolean":
        return {"true": True, "false": False}.get(text, text)
    if declared == "ArrayList":
        return _java_array_list(text, items)
    if declared == "Array":
        return _java_array(text, items)
    if declared == "HashMap":
        return _java_map(text)
    # char (BFCL's char pattern never matches, so the text is kept), String, any, ...
    return text


def _java_element(text: str, items: str | None) -> Any:
    if items in ("char", "String"):
        return text[1:-1]  # drop the quotes around a char or String element
    return java_value(text, items) if items else _java_untyped(text)


def _java_array_list(text: str, items: str | None) -> Any:
    if match := _AS_LIST.search(text):
        return [_java_element(part.strip(), items) for part in match.group(1).split(",")]
    if match := _ADD_BLOCK.search(text):
        return [_java_element(m.strip(), items) for m in _ADD_CALL.findall(match.group(1))]
    if _EMPTY_LIST.search(text):
        return []
    return text


def _java_array(text: str, items: str | None) -> Any:
    match = _ARRAY.search(text)
    if not match:
        return text
    parts = [p.strip() for p in match.group(1).split(",") if p.strip()]
    # Here BFCL converts each element as a parameter of the item type, so a
    # String element keeps its quotes (unlike ArrayList elements).
    return [java_value(p, items) if items else _java_untyped(p) for p in parts]


def _java_map(text: str) -> Any:
    if match := _MAP_BLOCK.search(text):
        return {
            key: _java_untyped(value.strip()) for key, value in _PUT_CALL.findall(match.group(1))
        }
    if _EMPTY_MAP.search(text):
        return {}
    return text


def _java_untyped(text: str) -> Any:
    """A Java literal of unknown type: boolean, "string", 1L, 1.5f, number, else text."""
    if text in ("true", "false"):
        return text == "true"
    if text.startswith('"') and text.endswith('"'):
        return text[1:-1]
    if _JAVA_LONG.match(text):
        # BFCL drops the last character; with a final newline that raises there
        return _int_or_text(text[:-1])
    if _JAVA_FLOAT.match(text):
        return float(_FLOAT_SUFFIX.sub("", text))
    return _number_or_text(text)


def js_value(text: str, declared: str, items: str | None = None) -> Any:
    """Convert JavaScript source text for a parameter of type ``declared``."""
    if declared == "String":
        if len(text) >= 1 and text[0] in "'\"" and text.endswith(text[0]):
            return text[1:-1]
        return text
    if declared == "integer":
        return int(text) if _INT.match(text) else text
    if declared == "float":
        return float(text) if _JS_FLOAT.match(text) else text
    if declared == "Bigint":
        # BFCL drops the last character; with a final newline that raises there
        return _int_or_text(text[:-1]) if _JS_BIGINT.match(text) else text
    if declared == "Boolean":
        return {"true": True, "false": False}.get(text, text)
    if declared == "array":
        return _js_array(text, items)
    if declared == "dict":
        return _js_object(text)
    return text


def _js_array(text: str, items: str | None) -> Any:
    code = text.strip()
    try:
        if match := _JS_2D.match(code):
            rows = []
            for index, inner in enumerate(_JS_INNER.findall(match.group(0))):
                inner = inner.strip()
                if index == 0 and inner.startswith("["):
                    inner = inner[1:]
                rows.append([_js_untyped(e.strip()) for e in inner.split(",")])
            return rows
        match = _JS_1D.match(code)
        if not match:
            return code
        body = match.group(1) if match.group(1) is not None else match.group(2) or ""
        parts = body.strip().split(",") if body.strip() else []
        if items:
            return [js_value(p.strip(), items) for p in parts]
        return [_js_untyped(p.strip()) for p in parts]
    except (ValueError, TypeError, IndexError):
        return code


def _js_object(text: str) -> Any:
    code = text.strip()
    if code == "{}":
        return {}
    match = _JS_OBJECT.match(code)
    if not match:
        return code
    out: dict[str, Any] = {}
    for key, value in _JS_PAIR.findall(match.group(1)):
        key, value = key.strip().strip("'\""), value.strip()
        if value.startswith("[") and value.endswith("]"):
            out[key] = _js_array(value, None)
        elif value.startswith("{") and value.endswith("}"):
            out[key] = _js_object(value)
        else:
            out[key] = _js_untyped(value.strip("'\""))
    return out


def _js_untyped(text: str) -> Any:
    text = text.strip()
    if text in ("true", "false"):
        return text == "true"
    if len(text) >= 1 and text[0] in "'\"" and text.endswith(text[0]):
        return text[1:-1]
    return _number_or_text(text)


def _number_or_text(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def _int_or_text(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        return text
