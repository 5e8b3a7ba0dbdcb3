"""The canonical dataset row: one JSON object per line of a JSONL dataset.

Fields (all optional):

============== ================================================================
``id``         row id (string; integers are turned into strings)
``input``      the user's request; falls back to the first user message
``messages``   the conversation, in any supported format (detected, or named
               by ``messages_format``); a JSON string is decoded first
``tools_called`` the calls the agent made (names or calls); wins over ``messages``
``expected_tools`` the reference calls (see :mod:`tooleval.formats.expected`)
``reference``  the reference answer (alias ``expected_output``)
``reference_topics`` topics the agent should stay on (list, or ``"a, b"``)
``category``, ``test_type`` labels for grouping and filtering
``output``     the agent's final answer (else the last assistant text)
``metadata``   an object; unknown top-level keys are added to it
============== ================================================================

A row that *is* a ragas ``MultiTurnSample`` (``user_input``,
``reference_tool_calls``, ...) is read too.

>>> s = sample_from_row({"id": 3, "input": "cancel 4471", "tools_called": ["cancel_order"],
...                      "expected_tools": "lookup_order, cancel_order", "priority": "high"})
>>> s.id, s.expected_tools.names, s.metadata
('3', ['lookup_order', 'cancel_order'], {'priority': 'high'})
>>> sample_to_row(s)["expected_tools"]
['lookup_order', 'cancel_order']
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from tooleval.errors import FormatError
from tooleval.formats._convo import first_user_text
from tooleval.formats._fields import describe, item
from tooleval.formats.convert import import_messages
from tooleval.formats.detect import FORMATS
from tooleval.formats.expected import parse_expected_tools, parse_tool_calls
from tooleval.formats.json_limits import MAX_DEPTH, check_depth, loads_text
from tooleval.formats.ragas import SAMPLE_KEYS, sample_from_ragas
from tooleval.model import Message, Sample

__all__ = ["ROW_FIELDS", "sample_from_row", "sample_to_row"]

#: The top-level keys a canonical row may have; any other key goes to ``metadata``.
ROW_FIELDS = (
    "id",
    "input",
    "messages",
    "messages_format",
    "tools_called",
    "expected_tools",
    "reference",
    "expected_output",
    "reference_topics",
    "category",
    "test_type",
    "output",
    "metadata",
)


_ROW_KEYS = frozenset(ROW_FIELDS)
_RAGAS_ROW_KEYS = _ROW_KEYS | frozenset(SAMPLE_KEYS)


def _cell(value: Any) -> Any:
    """``None`` for the empty cells tabular readers produce (NaN)."""
    if value is None or type(value) is str:
        return value
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _text(
    row: Mapping[str, Any], key: str, number: int | None, *, numbers: bool = False
) -> str | None:
    value = _cell(row.get(key))
    if value is None or isinstance(value, str):
        return value
    if numbers and isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    raise FormatError(f"expected a string, got {describe(value)}", field=key, row=number)


def _json_cell(value: Any, key: str, number: int | None) -> Any:
    """Decode a cell that holds JSON as text (CSV), leaving other values alone."""
    if isinstance(value, str) and value.strip()[:1] in ("[", "{"):
        try:
            return loads_text(value, field=key, row=number)
        except ValueError as exc:
            raise FormatError(
                f"looks like JSON but cannot be parsed ({exc})", field=key, row=number
            ) from None
    return value


def _topics(value: Any, number: int | None) -> list[str] | None:
    value = _json_cell(_cell(value), "reference_topics", number)
    if value is None:
        return None
    if isinstance(value, str):
        return [t.strip() for t in value.split(",") if t.strip()]
    if isinstance(value, list):
        for index, topic in enumerate(value):
            if not isinstance(topic, str):
                raise FormatError(
                    f"expected a topic string, got {describe(topic)}",
                    field=item("reference_topics", index),
                    row=number,
                )
        return list(value)
    raise FormatError(
        f"expected a list of topics or a text like 'billing, refunds', got {describe(value)}",
        field="reference_topics",
        row=number,
    )


def _metadata(row: Mapping[str, Any], extra_keys: list[str], number: int | None) -> dict[str, Any]:
    raw = row.get("metadata")
    if raw is None and not extra_keys:
        return {}
    value = _json_cell(_cell(raw), "metadata", number)
    if value is None:
        metadata: dict[str, Any] = {}
    elif isinstance(value, Mapping):
        metadata = dict(value)
    else:
        raise FormatError(
            f"expected an object, got {describe(value)}", field="metadata", row=number
        )
    for key in extra_keys:
        if key in metadata and metadata[key] != row[key]:
            raise FormatError(
                f"unknown key {key!r} would go to metadata, but metadata already has a "
                f"different {key!r}; rename one of them",
                field=key,
                row=number,
            )
        metadata[key] = row[key]
    return metadata


def _ragas_base(row: Mapping[str, Any], number: int | None) -> Sample:
    """A ragas ``MultiTurnSample`` row read by :func:`sample_from_ragas` (its own fields only)."""
    if _cell(row.get("messages")) is not None:
        raise FormatError(
            "a row has both 'user_input' (ragas) and 'messages'; keep one",
            field="messages",
            row=number,
        )
    if _cell(row.get("expected_tools")) is not None:
        raise FormatError(
            "a ragas row gives 'expected_tools' through its own fields "
            "('reference_tool_calls'); keep one",
            field="expected_tools",
            row=number,
        )
    return sample_from_ragas(row, row=number)


def _conversation(
    row: Mapping[str, Any], messages: list[Message], number: int | None
) -> tuple[list[Message], str | None]:
    """The row's messages (``messages``, or a conversation given as ``input``) and its text input."""
    conversation = _json_cell(_cell(row.get("messages")), "messages", number)
    where = "messages"
    raw_input = _cell(row.get("input"))
    if conversation is None and isinstance(raw_input, list | dict):
        conversation, where, raw_input = raw_input, "input", None  # a conversation given as input
    if conversation is not None:
        fmt = _text(row, "messages_format", number)
        if fmt is not None and fmt not in FORMATS:
            raise FormatError(
                f"unknown format {fmt!r}; expected one of {list(FORMATS)}",
                field="messages_format",
                row=number,
            )
        messages = import_messages(conversation, fmt, path=where, row=number)
    if raw_input is not None and not isinstance(raw_input, str):
        raise FormatError(
            f"expected the user's request as a string (or a conversation), got "
            f"{describe(raw_input)}",
            field="input",
            row=number,
        )
    return messages, raw_input


def _reference(row: Mapping[str, Any], number: int | None) -> str | None:
    """``reference`` or its alias ``expected_output`` (both given: they must agree)."""
    reference = _text(row, "reference", number, numbers=True)
    alias = _text(row, "expected_output", number, numbers=True)
    if reference is not None and alias is not None and reference != alias:
        raise FormatError(
            "'reference' and its alias 'expected_output' differ; keep one",
            field="expected_output",
            row=number,
        )
    return reference if reference is not None else (alias or None)


def sample_from_row(
    row: Mapping[str, Any], *, row_number: int | None = None, max_depth: int | None = MAX_DEPTH
) -> Sample:
    """Read one canonical dataset row (or a ragas ``MultiTurnSample`` dict) into a Sample.

    Errors are :class:`~tooleval.errors.FormatError` naming ``row_number``
    and the field path (``messages[3].tool_calls[0].function.arguments``).
    A row nested deeper than ``max_depth`` levels raises
    :class:`~tooleval.formats.json_limits.NestingTooDeep` (``None``: the
    caller has checked already, as ``tooleval score`` does when parsing).
    """
    number = row_number
    if max_depth is not None and type(row) is dict:
        check_depth(row, limit=max_depth, row=number)
    if not isinstance(row, Mapping):
        raise FormatError(f"expected a row object, got {describe(row)}", row=number)
    is_ragas = "user_input" in row
    known = _RAGAS_ROW_KEYS if is_ragas else _ROW_KEYS
    extra_keys = [k for k in row if k not in known]
    for key in extra_keys:
        if not isinstance(key, str):
            raise FormatError(f"expected string keys, got {key!r}", row=number)

    base = _ragas_base(row, number) if is_ragas else Sample()
    messages, raw_input = _conversation(row, base.messages, number)
    reference = _reference(row, number)
    expected = base.expected_tools
    if not is_ragas:
        expected = parse_expected_tools(_cell(row.get("expected_tools")), row=number)
    metadata = {**base.metadata, **_metadata(row, extra_keys, number)}
    topics = row.get("reference_topics")
    return Sample(
        input=raw_input or first_user_text(messages),
        messages=messages,
        tools_called=parse_tool_calls(_cell(row.get("tools_called")), row=number),
        expected_tools=expected,
        reference=reference if reference is not None else base.reference,
        reference_topics=base.reference_topics
        if is_ragas
        else (None if topics is None else _topics(topics, number)),
        output=_text(row, "output", number),
        category=_text(row, "category", number, numbers=True),
        test_type=_text(row, "test_type", number),
        id=_text(row, "id", number, numbers=True),
        metadata=metadata,
    )


def sample_to_row(sample: Sample) -> dict[str, Any]:
    """Write a Sample as a canonical row (messages in tooleval's own shape).

    ``sample_from_row(sample_to_row(s))`` gives ``s`` back (with ``input``
    filled from the first user message when it was empty).
    """
    row = sample.to_dict()
    if row.get("id") is None:
        row.pop("id", None)
    return row
