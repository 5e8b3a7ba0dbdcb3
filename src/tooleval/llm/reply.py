"""What a judge returns, and how a reply's text becomes a checked JSON object.

Parsing is pure and deliberately forgiving about *form* (code fences, prose
around the object, ``"yes"`` for ``true``, ``"Parameter Error"`` for an enum
value ``parameter_error``) and strict about *content* (required keys, types,
enum membership). A reply that fails is reported with the first problem found,
which the judged metrics quote back to the judge when they re-ask.

>>> schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
>>> parse_json_reply('Sure! ```json\\n{"ok": "yes"}\\n```', schema)
({'ok': True}, None)
>>> parse_json_reply('{"ok": maybe}', schema)[1]
'no JSON object found in the reply'
>>> parse_json_reply('{"ok": 3}', schema)[1]
'$.ok: expected true or false, got 3'
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["JudgeReply", "check_schema", "extract_json_object", "parse_json_reply"]


@dataclass(frozen=True, slots=True)
class JudgeReply:
    """One answer from a judge model.

    ``parsed`` is the JSON object checked against the requested schema, or
    ``None`` (then ``parse_error`` says why, or no schema was requested).
    ``cached`` is true when the reply came from the judge cache, in which case
    no model was called and the token counts are those of the original call.
    ``input_cut`` says what the judge cut from the prompt to fit its context
    (see :mod:`tooleval.llm.fit`), or is None when it read the prompt whole.
    """

    text: str
    parsed: Any = None
    tokens_in: int = 0
    tokens_out: int = 0
    latency_ms: float = 0.0
    model: str = ""
    cached: bool = False
    parse_error: str | None = None
    input_cut: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> JudgeReply:
        return cls(**{k: data[k] for k in data if k in cls.__dataclass_fields__})


_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


def extract_json_object(text: str) -> Any:
    """The first JSON object in ``text``, or ``None`` when there is none.

    Tries, in order: the whole text, the inside of a fenced code block, then
    every balanced ``{...}`` span (string-aware) from left to right.

    >>> extract_json_object('The verdict is {"a": [1, {"b": "}"}]} as asked.')
    {'a': [1, {'b': '}'}]}
    """
    stripped = text.strip()
    candidates = [stripped]
    candidates += [m.group(1).strip() for m in _FENCE.finditer(text)]
    for candidate in candidates:
        if candidate.startswith("{"):
            try:
                value = json.loads(candidate)
            except ValueError:
                continue
            if isinstance(value, dict):
                return value
    start = text.find("{")
    while start != -1:
        end = _balanced_end(text, start)
        if end is not None:
            try:
                value = json.loads(text[start : end + 1])
            except ValueError:
                value = None
            if isinstance(value, dict):
                return value
        start = text.find("{", start + 1)
    return None


def _balanced_end(text: str, start: int) -> int | None:
    """Index of the brace closing the object opened at ``start`` (None if unclosed)."""
    depth = 0
    in_string = False
    escaped = False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index
    return None


_TRUE = {"true", "yes", "y", "1"}
_FALSE = {"false", "no", "n", "0"}


def _enum_key(value: Any) -> str:
    return re.sub(r"[\s\-]+", "_", str(value).strip().lower())


def check_schema(value: Any, schema: Mapping[str, Any], path: str = "$") -> tuple[Any, str | None]:
    """Check ``value`` against a small JSON-schema subset, coercing harmless forms.

    Supports ``type`` (object, array, string, integer, number, boolean),
    ``properties``, ``required``, ``items``, ``enum``, ``minItems``. Returns the
    coerced value and ``None``, or the value and the first problem found.

    >>> check_schema({"n": "3"}, {"type": "object", "properties": {"n": {"type": "integer"}}})
    ({'n': 3}, None)
    >>> check_schema([], {"type": "array", "minItems": 1})[1]
    '$: expected at least 1 item(s), got 0'
    """
    if "enum" in schema:
        return _check_enum(value, list(schema["enum"]), path)
    check = _CHECKS.get(schema.get("type"))
    return (value, None) if check is None else check(value, schema, path)


Checked = tuple[Any, str | None]


def _check_enum(value: Any, options: list[Any], path: str) -> Checked:
    if value in options:
        return value, None
    by_key = {_enum_key(o): o for o in options}
    key = _enum_key(value) if isinstance(value, str) else None
    if key in by_key:
        return by_key[key], None
    return value, f"{path}: expected one of {options}, got {value!r}"


def _check_object(value: Any, schema: Mapping[str, Any], path: str) -> Checked:
    if not isinstance(value, dict):
        return value, f"{path}: expected an object, got {type(value).__name__}"
    out = dict(value)
    for key in schema.get("required", ()):
        if key not in out:
            return value, f"{path}: missing key {key!r}"
    for key, sub in schema.get("properties", {}).items():
        if key in out:
            out[key], error = check_schema(out[key], sub, f"{path}.{key}")
            if error:
                return value, error
    return out, None


def _check_array(value: Any, schema: Mapping[str, Any], path: str) -> Checked:
    if not isinstance(value, list):
        return value, f"{path}: expected a list, got {type(value).__name__}"
    if len(value) < schema.get("minItems", 0):
        return value, f"{path}: expected at least {schema['minItems']} item(s), got {len(value)}"
    items = schema.get("items")
    if items is None:
        return list(value), None
    out_items = []
    for index, item in enumerate(value):
        coerced, error = check_schema(item, items, f"{path}[{index}]")
        if error:
            return value, error
        out_items.append(coerced)
    return out_items, None


def _check_boolean(value: Any, schema: Mapping[str, Any], path: str) -> Checked:
    if isinstance(value, bool):
        return value, None
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE, None
    return value, f"{path}: expected true or false, got {value!r}"


def _check_integer(value: Any, schema: Mapping[str, Any], path: str) -> Checked:
    if isinstance(value, bool):
        return value, f"{path}: expected an integer, got {value!r}"
    if isinstance(value, int):
        return value, None
    if isinstance(value, float) and value.is_integer():
        return int(value), None
    if isinstance(value, str) and value.strip().lstrip("#").isdigit():
        return int(value.strip().lstrip("#")), None
    return value, f"{path}: expected an integer, got {value!r}"


def _check_number(value: Any, schema: Mapping[str, Any], path: str) -> Checked:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value, None
    try:
        return float(value), None
    except (TypeError, ValueError):
        return value, f"{path}: expected a number, got {value!r}"


def _check_string(value: Any, schema: Mapping[str, Any], path: str) -> Checked:
    if isinstance(value, str):
        return value, None
    if value is None:
        return value, f"{path}: expected a string, got null"
    # A number or list where prose was asked for is still readable evidence.
    return json.dumps(value) if not isinstance(value, int | float) else str(value), None


# One check per JSON-schema type (a type not listed is taken as it is).
_CHECKS: dict[Any, Callable[[Any, Mapping[str, Any], str], Checked]] = {
    "object": _check_object,
    "array": _check_array,
    "boolean": _check_boolean,
    "integer": _check_integer,
    "number": _check_number,
    "string": _check_string,
}


def parse_json_reply(text: str, schema: Mapping[str, Any] | None) -> tuple[Any, str | None]:
    """Extract and check the JSON object in a judge's reply: ``(object, None)`` or ``(None, why)``.

    >>> parse_json_reply('{"verdicts": [{"a": 1}, {"a"', None)[1]
    'the JSON object is never closed (reply cut off or malformed)'
    """
    start = text.find("{")
    if start != -1 and _balanced_end(text, start) is None:
        # An outer object left open would otherwise yield one of its inner objects.
        return None, "the JSON object is never closed (reply cut off or malformed)"
    value = extract_json_object(text)
    if value is None:
        return None, "no JSON object found in the reply"
    if schema is None:
        return value, None
    coerced, error = check_schema(value, schema)
    if error:
        return None, error
    return coerced, None
