"""Decoders of BFCL handlers that parse their model's own chat template.

BFCL (``bfcl-eval`` 2026.3.23) stores what a locally served model printed
and decodes it with the model handler's ``decode_ast``. The handlers below
parse their template themselves; each name is one behaviour, shared by the
handlers listed in :data:`TEMPLATE_HANDLERS`, re-implemented here (JSON is
read with the standard ``json`` dialect, as BFCL does; nothing is ``eval``\\ ed):

==================  ==========================================================
``tool_call_tags``  every ``<tool_call>\\n{json}\\n</tool_call>`` block; blocks that
                    are not JSON are skipped, a block that is not an object
                    fails; ``{"name": n, "arguments": {object}}`` per call
``hammer``          the text without ```` ``` ````, as JSON; text that is not JSON
                    is no call; a list of ``{"name", "arguments"}``
``xlam``            JSON (an object is one call); text that is not JSON is
                    split at ``;`` and each part read as JSON
``json_calls``      JSON (an object is one call), else the decoder fails
``falcon_fc``       the JSON between the first ``<tool_call>`` and ``</tool_call>``
                    (a ```` ```json ```` fence inside is removed); no tag fails
``think_agent``     the JSON after the first ``</think>`` (``'`` read as ``"``);
                    no ``</think>`` is no call
``llama_3_1``       without ``<|python_tag|>``: parts split at ``;`` read as
                    JSON, else one Python literal; ``{"name", "parameters"}``
``gorilla``         the text inside ``[...]`` through the prompting decoder
``nemotron``        the prompting decoder on the first ``<TOOLCALL>...</TOOLCALL>``;
                    no tag is no call
``glm``             first line the name, second line JSON arguments; one line
                    is text, not a call
``granite_fc``      parts split at ``<function_call>``, each JSON
                    ``{"name", "arguments"}``; a part that is not JSON, or
                    ``no_function``, is kept as text (not a call)
``minicpm_fc``      Python calls between ``<|tool_call_start|>`` and
                    ``<|tool_call_end|>`` (after the last ``<|thought_end|>``);
                    otherwise the text content, not a call
``functiongemma``   ``<start_function_call>call:NAME{key:value}<end_function_call>``
                    blocks (:mod:`~tooleval.benchmarks.bfcl.decode_gemma`)
==================  ==========================================================

Where BFCL would raise, these raise :class:`BfclDecodeError`; where BFCL
returns something that is not a list of calls (text, a call whose
arguments are not an object), so do these, and
:func:`~tooleval.benchmarks.bfcl.reader.decode_bfcl` labels it as BFCL's runner does
(``ast_decoder:decoder_wrong_output_format``).

Known differences, all on input no template produces: ``llama_3_1`` reads
the text as a Python literal with arithmetic where BFCL calls ``eval`` (a
builtin call such as ``dict(a=1)``, a comparison or a subscript decode in
BFCL and fail here); JSON nested deeper than 100 levels fails here with a
clear message where BFCL reads it (or, past Python's recursion limit,
skips it).

>>> decode_template("tool_call_tags", '<tool_call>\\n{"name": "f", "arguments": {"a": 1}}\\n</tool_call>')
[{'f': {'a': 1}}]
>>> decode_template("xlam", '{"name": "f", "arguments": {"a": 1}}; {"name": "g", "arguments": {}}')
[{'f': {'a': 1}}, {'g': {}}]
>>> decode_template("llama_3_1", "<|python_tag|>{'name': 'f', 'parameters': {'a': 1}}")
[{'f': {'a': 1}}]
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from tooleval.benchmarks.bfcl.decode_gemma import decode_functiongemma
from tooleval.benchmarks.bfcl.decode_python import (
    BfclDecodeError,
    decode_call,
    decode_python,
    evaluate_binop,
)
from tooleval.benchmarks.bfcl.decode_tree import decode_java, decode_javascript
from tooleval.formats.json_limits import NestingTooDeep, loads_text

__all__ = ["TEMPLATE_DECODERS", "TEMPLATE_HANDLERS", "decode_prompt_text", "decode_template"]

#: Decoder name -> the BFCL handlers (``bfcl_eval.model_handler``) whose ``decode_ast`` it is.
TEMPLATE_HANDLERS: dict[str, tuple[str, ...]] = {
    "tool_call_tags": (
        "QwenFCHandler",
        "Granite4FCHandler",
        "PelicanVLFCHandler",
        "NanbeigeFCHandler",
    ),
    "hammer": ("HammerHandler",),
    "xlam": ("SalesforceLlamaHandler", "SalesforceQwenHandler"),
    "json_calls": ("BitAgentHandler",),
    "falcon_fc": ("Falcon3FCHandler",),
    "think_agent": ("ThinkAgentHandler",),
    "llama_3_1": ("LlamaHandler_3_1",),
    "gorilla": ("GorillaHandler",),
    "nemotron": ("NemotronHandler",),
    "glm": ("GLMHandler",),
    "granite_fc": ("GraniteFunctionCallingHandler",),
    "minicpm_fc": ("MiniCPMFCHandler",),
    "functiongemma": ("FunctionGemmaHandler",),
}

_TOOL_CALL_BLOCK = re.compile(r"<tool_call>\n(.*?)\n</tool_call>", re.DOTALL)
_TOOLCALL_TAG = re.compile(r"<TOOLCALL>(.*?)</TOOLCALL>", re.DOTALL)


def decode_prompt_text(text: Any, language: str = "python") -> Any:
    """BFCL's default prompting decoder for ``language`` (python, java or javascript).

    >>> decode_prompt_text("[f(a=1)]")
    [{'f': {'a': 1}}]
    """
    if language == "java":
        return decode_java(text)
    if language == "javascript":
        return decode_javascript(text)
    return decode_python(text)


def decode_template(decoder: str, result: Any, language: str = "python") -> Any:
    """What the named template decoder returns for ``result`` (not yet checked to be calls).

    Raises :class:`BfclDecodeError` where BFCL's handler raises.
    """
    try:
        function = TEMPLATE_DECODERS[decoder]
    except KeyError:
        raise ValueError(
            f"unknown BFCL template decoder {decoder!r}; expected one of "
            f"{', '.join(TEMPLATE_DECODERS)}"
        ) from None
    return function(result, language)


# ---------------------------------------------------------------- shared pieces


def _text(result: Any, decoder: str) -> str:
    if not isinstance(result, str):
        raise BfclDecodeError(f"{decoder}: the result must be text, got {type(result).__name__}")
    return result


def _json(text: str, where: str) -> Any:
    try:
        return loads_text(text)
    except NestingTooDeep as exc:
        raise BfclDecodeError(f"{where}: {exc}") from None
    except ValueError as exc:
        raise BfclDecodeError(f"{where}: not JSON: {exc}") from None


def _calls(items: Iterable[Any], name_key: str, args_key: str) -> list[dict[Any, Any]]:
    """``[{item[name_key]: item[args_key]}]``; an item without both keys fails."""
    decoded = []
    for index, item in enumerate(items):
        if not isinstance(item, dict) or name_key not in item or args_key not in item:
            raise BfclDecodeError(
                f"call {index}: expected an object with {name_key!r} and {args_key!r}, "
                f"got {_short(item)}"
            )
        decoded.append(_one(item[name_key], item[args_key], index))
    return decoded


def _one(name: Any, arguments: Any, index: int) -> dict[Any, Any]:
    try:
        return {name: arguments}
    except TypeError:  # an unhashable name (a list or an object)
        raise BfclDecodeError(f"call {index}: the name {_short(name)} is not text") from None


def _iterate(value: Any, where: str) -> Iterable[Any]:
    """The items Python's ``for`` visits in a decoded value (an object: its keys)."""
    if isinstance(value, list | tuple | dict | str | set | bytes):
        return value
    raise BfclDecodeError(f"{where}: expected a list of calls, got {_short(value)}")


def _as_list(value: Any) -> Iterable[Any]:
    return value if isinstance(value, list) else [value]


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ---------------------------------------------------------------- the decoders


def _tool_call_tags(result: Any, language: str) -> Any:
    text = _text(result, "tool_call_tags")
    calls = []
    for block in _TOOL_CALL_BLOCK.findall(text):
        try:
            value = loads_text(block)
        except NestingTooDeep as exc:
            raise BfclDecodeError(f"<tool_call> block: {exc}") from None
        except ValueError:
            continue  # BFCL skips a block that is not JSON
        calls.append(value)
    for index, call in enumerate(calls):
        if type(call) is not dict:
            raise BfclDecodeError(f"<tool_call> block {index} is not an object: {_short(call)}")
    decoded = []
    for index, call in enumerate(calls):
        if "name" not in call or "arguments" not in call:
            raise BfclDecodeError(
                f"<tool_call> block {index}: expected 'name' and 'arguments', got {_short(call)}"
            )
        arguments = call["arguments"]
        if not isinstance(arguments, dict):
            raise BfclDecodeError(
                f"<tool_call> block {index}: arguments must be an object, got {_short(arguments)}"
            )
        decoded.append(_one(call["name"], dict(arguments), index))
    return decoded


def _hammer(result: Any, language: str) -> Any:
    text = _text(result, "hammer").replace("```", "")
    try:
        value = loads_text(text)
    except NestingTooDeep as exc:
        raise BfclDecodeError(f"hammer: {exc}") from None
    except ValueError:
        return []  # BFCL reads text that is not JSON as "no call"
    return _calls(_iterate(value, "hammer"), "name", "arguments")


def _xlam(result: Any, language: str) -> Any:
    text = _text(result, "xlam")
    try:
        value = _as_list(loads_text(text))
    except NestingTooDeep as exc:
        raise BfclDecodeError(f"xlam: {exc}") from None
    except ValueError:
        value = [_json(part.strip(), f"xlam part {i}") for i, part in enumerate(text.split(";"))]
    return _calls(value, "name", "arguments")


def _json_calls(result: Any, language: str) -> Any:
    value = _json(_text(result, "json_calls"), "json_calls")
    return _calls(_as_list(value), "name", "arguments")


def _falcon_fc(result: Any, language: str) -> Any:
    text = _text(result, "falcon_fc")
    if "<tool_call>" not in text:
        raise BfclDecodeError("falcon_fc: no <tool_call> in the result")
    inner = text.split("<tool_call>")[1].split("</tool_call>")[0].strip()
    if inner.startswith("```") and inner.endswith("```"):
        inner = inner.strip("`").strip()
        if inner.startswith("json"):
            inner = inner[4:].strip()
    value = _json(inner, "falcon_fc <tool_call>")
    return _calls(_as_list(value), "name", "arguments")


def _think_agent(result: Any, language: str) -> Any:
    text = _text(result, "think_agent").strip().replace("'", '"')
    head, found, tail = text.partition("</think>")
    value = _json(tail.strip() if found else "[]", "think_agent")
    return _calls(_iterate(value, "think_agent"), "name", "arguments")


def _llama_3_1(result: Any, language: str) -> Any:
    text = _text(result, "llama_3_1").replace("<|python_tag|>", "")
    if ";" in text:
        items: Iterable[Any] = [
            _json(part, f"llama_3_1 part {i}") for i, part in enumerate(text.split(";"))
        ]
    else:
        value = _python_literal(text)
        items = [value] if isinstance(value, dict) else _iterate(value, "llama_3_1")
    return _calls(items, "name", "parameters")


def _python_literal(text: str) -> Any:
    """The value of a Python literal expression (with arithmetic), as ``eval`` gives it."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text.lstrip(" \t"), mode="eval")  # eval drops leading blanks
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise BfclDecodeError(f"llama_3_1: not Python: {exc or type(exc).__name__}") from None
    return evaluate_binop(tree.body)


def _gorilla(result: Any, language: str) -> Any:
    return decode_prompt_text("[" + _text(result, "gorilla") + "]", language)


def _nemotron(result: Any, language: str) -> Any:
    match = _TOOLCALL_TAG.search(_text(result, "nemotron"))
    return [] if match is None else decode_prompt_text(match.group(1), language)


def _glm(result: Any, language: str) -> Any:
    lines = _text(result, "glm").split("\n")
    if len(lines) == 1:
        return lines  # text, not a call
    return [{lines[0]: _json(lines[1], "glm arguments (line 2)")}]


def _granite_fc(result: Any, language: str) -> Any:
    decoded: list[Any] = []
    parts = [p.strip() for p in _text(result, "granite_fc").split("<function_call>")]
    for index, part in enumerate(p for p in parts if p):
        try:
            value = loads_text(part)
        except NestingTooDeep as exc:
            raise BfclDecodeError(f"<function_call> {index}: {exc}") from None
        except ValueError:
            decoded.append(part)  # kept as text: not a call
            continue
        if not isinstance(value, dict):
            raise BfclDecodeError(f"<function_call> {index}: not an object: {_short(value)}")
        name = value.get("name", "")
        if not isinstance(name, str):
            raise BfclDecodeError(f"<function_call> {index}: the name {_short(name)} is not text")
        if name.strip() == "no_function":
            decoded.append("No function is called")
            continue
        decoded.append({name.strip(): value.get("arguments", {})})
    return decoded


_THOUGHT = ("<|thought_start|>", "<|thought_end|>")
_TOOL_CALL = ("<|tool_call_start|>", "<|tool_call_end|>")


def _minicpm_fc(result: Any, language: str) -> Any:
    text = _text(result, "minicpm_fc")
    start, end = _THOUGHT
    if start in text and end in text:
        thought, _, text = text.rpartition(end)
        if start not in thought:
            raise BfclDecodeError("minicpm_fc: <|thought_start|> only after the last thought end")
    start, end = _TOOL_CALL
    if not (start in text and end in text):
        return text.strip()  # the text content, not a call
    calls, _, content = text.rpartition(end)
    if start not in calls:
        raise BfclDecodeError("minicpm_fc: <|tool_call_start|> only after the last tool call end")
    decoded = _minicpm_calls(calls.split(start, 1)[1])
    return decoded if decoded else content.strip()


def _minicpm_calls(source: str) -> list[dict[str, dict[str, Any]]] | None:
    """Calls of a MiniCPM tool-call block, or None where BFCL falls back to the content."""
    source = source.strip()
    if source.startswith("```"):
        source = source.lstrip("`").strip()
        if source.startswith("python"):
            source = source.lstrip("python").strip()  # characters, as BFCL strips them
    if source.endswith("```"):
        source = source.rstrip("`").strip()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    decoded: list[dict[str, dict[str, Any]]] = []
    for statement in tree.body:
        value = getattr(statement, "value", None)  # BFCL reads any statement's value
        if not isinstance(value, ast.Call):
            return None
        try:
            decoded.append(decode_call(value))
        except (BfclDecodeError, RecursionError):
            return None
    return decoded


#: Decoder name -> function of (result, language).
TEMPLATE_DECODERS: dict[str, Callable[[Any, str], Any]] = {
    "tool_call_tags": _tool_call_tags,
    "hammer": _hammer,
    "xlam": _xlam,
    "json_calls": _json_calls,
    "falcon_fc": _falcon_fc,
    "think_agent": _think_agent,
    "llama_3_1": _llama_3_1,
    "gorilla": _gorilla,
    "nemotron": _nemotron,
    "glm": _glm,
    "granite_fc": _granite_fc,
    "minicpm_fc": _minicpm_fc,
    "functiongemma": lambda result, language: decode_functiongemma(_text(result, "functiongemma")),
}
