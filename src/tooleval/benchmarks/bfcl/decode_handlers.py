"""Decoders of BFCL's model handlers, by name: what ``handler.decode_ast`` does.

BFCL (``bfcl-eval`` 2026.3.23) decodes each model's results with its
handler's ``decode_ast``. Most handlers use one of two defaults; a few read
other shapes. Each name below is one behaviour, re-implemented:

=================  ==========================================================
``prompt``         default prompting decoder, per language
``gemini_prompt``  removes ```` ```tool_code\\n```` and ``\\n```` ```` first (Gemini)
``phi_prompt``     strips, then drops a leading ```` ```json```` or ```` ```python```` (Phi)
``openai``         default function calling: per item its first name, arguments
                   through ``json.loads`` (OpenAI, Claude, Mistral, DeepSeek, Qwen, ...)
``fc``             ``openai``, also accepting ``{name: {args}}`` objects (tooleval's
                   choice for models BFCL does not list)
``gemini_fc``      the result as is (a non-list is wrapped in a list)
``list``           the result as is, which must be a list (Nova, Ministral)
``list_of_dicts``  the result as is, which must be a list of objects (Arch, Granite 3, Phi FC)
``name_arguments`` ``[{"name": ..., "arguments": {...}}]`` (Mining, DM-Cito)
``cohere``         ``[{"tool_name": ..., "parameters": {...}}]``; a non-list is no call
=================  ==========================================================

Handlers that parse their own chat templates (Qwen FC, Hammer, xLAM, Llama
3.1 FC, ...) have decoders of their own in
:mod:`~tooleval.benchmarks.bfcl.decode_templates` (``tool_call_tags``,
``hammer``, ``xlam``, ...: :data:`TEMPLATE_DECODERS`), also selected by name
here.

>>> decode_with("name_arguments", [{"name": "f", "arguments": {"a": 1}}])
[{'f': {'a': 1}}]
>>> decode_with("gemini_prompt", "```tool_code\\n[f(a=1)]\\n```")
[{'f': {'a': 1}}]
>>> decode_with("hammer", '[{"name": "f", "arguments": {"a": 1}}]')
[{'f': {'a': 1}}]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tooleval.benchmarks.bfcl.decode_python import BfclDecodeError
from tooleval.benchmarks.bfcl.decode_templates import (
    TEMPLATE_DECODERS,
    decode_prompt_text,
    decode_template,
)
from tooleval.formats.json_limits import NestingTooDeep, loads_text

__all__ = ["DECODERS", "PROMPT_DECODERS", "decode_with"]

#: Decoders that read text (the rest read lists of calls).
PROMPT_DECODERS = ("prompt", "gemini_prompt", "phi_prompt")
#: Every decoder name :func:`decode_with` knows.
DECODERS = (
    *PROMPT_DECODERS,
    "fc",
    "openai",
    "gemini_fc",
    "list",
    "list_of_dicts",
    "name_arguments",
    "cohere",
    *TEMPLATE_DECODERS,
)


def decode_with(decoder: str, result: Any, language: str = "python") -> Any:
    """What the named BFCL decoder returns for ``result`` (not yet checked to be calls).

    Raises :class:`BfclDecodeError` where BFCL's decoder raises.
    """
    if decoder in PROMPT_DECODERS:
        return _prompt(_prepare(decoder, result), language)
    if decoder in ("fc", "openai"):
        return _openai(result, objects=decoder == "fc")
    if decoder == "gemini_fc":
        return result if isinstance(result, list) else [result]
    if decoder == "list":
        if not isinstance(result, list):
            raise BfclDecodeError(f"expected a list of calls, got {_kind(result)}")
        return result
    if decoder == "list_of_dicts":
        if not isinstance(result, list) or any(type(item) is not dict for item in result):
            raise BfclDecodeError(f"expected a list of call objects, got {_kind(result)}")
        return result
    if decoder == "name_arguments":
        return _keyed(result, "name", "arguments")
    if decoder == "cohere":
        return _keyed(result, "tool_name", "parameters") if isinstance(result, list) else []
    if decoder in TEMPLATE_DECODERS:
        return decode_template(decoder, result, language)
    raise ValueError(f"unknown BFCL decoder {decoder!r}; expected one of {', '.join(DECODERS)}")


def _prompt(result: Any, language: str) -> Any:
    return decode_prompt_text(result, language)


def _prepare(decoder: str, result: Any) -> Any:
    if decoder == "prompt":
        return result
    if not isinstance(result, str):
        raise BfclDecodeError(f"a prompt-style result must be text, got {_kind(result)}")
    if decoder == "gemini_prompt":
        return result.replace("```tool_code\n", "").replace("\n```", "")
    text = result.strip()  # phi_prompt
    for fence in ("```json", "```python"):
        if text.startswith(fence):
            text = text[len(fence) :]
    return text


def _openai(result: Any, *, objects: bool) -> list[dict[str, Any]]:
    # BFCL iterates the result: text and dicts fail unless empty.
    if isinstance(result, str | dict) and not result:
        return []
    if not isinstance(result, list | tuple):
        raise BfclDecodeError(
            f"a function-calling result must be a list of calls, got {_kind(result)}"
        )
    decoded = []
    for index, item in enumerate(result):
        if not isinstance(item, Mapping) or not item:
            raise BfclDecodeError(f"call {index}: expected {{name: arguments}}, got {_kind(item)}")
        name = next(iter(item))  # BFCL reads the first name only
        arguments = item[name]
        if isinstance(arguments, str | bytes | bytearray):
            try:
                arguments = loads_text(arguments)
            except (ValueError, NestingTooDeep) as exc:
                raise BfclDecodeError(f"call {index} {name}: invalid JSON: {exc}") from None
        elif not (objects and isinstance(arguments, Mapping)):
            raise BfclDecodeError(
                f"call {index} {name}: arguments must be JSON text, got {_kind(arguments)}"
            )
        decoded.append({name: arguments})
    return decoded


def _keyed(result: Any, name_key: str, args_key: str) -> list[dict[str, Any]]:
    if isinstance(result, str | dict) and not result:
        return []
    if not isinstance(result, list | tuple):
        raise BfclDecodeError(f"expected a list of calls, got {_kind(result)}")
    decoded = []
    for index, item in enumerate(result):
        if not isinstance(item, Mapping) or name_key not in item or args_key not in item:
            raise BfclDecodeError(
                f"call {index}: expected {{{name_key!r}: ..., {args_key!r}: ...}}, got {_kind(item)}"
            )
        try:
            decoded.append({item[name_key]: item[args_key]})
        except TypeError as exc:  # an unhashable name
            raise BfclDecodeError(f"call {index}: {exc}") from None
    return decoded


def _kind(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
