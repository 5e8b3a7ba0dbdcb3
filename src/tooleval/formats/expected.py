"""Parse ``expected_tools`` (and ``tools_called``) cells in every accepted shape.

Accepted values (a CSV cell may hold any of them JSON-encoded):

* ``None`` / missing / ``""`` / NaN: no reference bound for the row (``None``);
* ``[]`` (or ``"[]"``): a restraint row, bound and expecting no call;
* a list of names ``["search", "fetch"]`` or a text ``"search, fetch"``
  (commas or new lines): names only, arguments not compared;
* a list of calls: ``{"name", "args"}`` (or ``"arguments"``, an object or a
  JSON string), the single-key ``{"search": {"q": "x"}}`` form, or
  OpenAI's ``{"function": {"name", "arguments"}}``; names and calls mix;
* a partial-order object ``{"calls": [...], ...}`` with one of
  ``"order": "listed" | "any"``, ``"before": [[a, b], ...]`` (call ``a``
  before call ``b``) or ``"groups": [[a, b], [c]]`` (groups in sequence, any
  order inside a group); ``a``, ``b``, ``c`` are 0-based indices into
  ``calls`` or names that occur once there. ``before`` and ``groups`` may
  be combined; their constraints are added together.

>>> parse_expected_tools("search, fetch").names
['search', 'fetch']
>>> parse_expected_tools([]).calls, parse_expected_tools(None)
((), None)
>>> e = parse_expected_tools({"calls": ["check", "prefs", "reserve"],
...                           "groups": [["check", "prefs"], ["reserve"]]})
>>> e.before
((0, 2), (1, 2))
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from tooleval.errors import FormatError
from tooleval.formats._fields import at, describe, item
from tooleval.formats.json_limits import loads_text
from tooleval.model import ExpectedTools, ToolCall

__all__ = ["call_from_value", "parse_expected_tools", "parse_tool_calls"]

_CALL_KEYS = frozenset(
    {"name", "args", "arguments", "id", "type", "result", "is_error", "raw_arguments"}
    | {"parse_error"}
)
_ORDER_KEYS = frozenset({"calls", "order", "before", "groups"})
_NAME = re.compile(r"^[^\s(){}\[\]\"',;]+$")


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True  # an empty cell read by pandas
    # "null" is how JSON writers spell a missing cell.
    return isinstance(value, str) and value.strip() in ("", "null")


def _decode(text: str, field: str, row: int | None) -> Any:
    """A cell's text: JSON when it looks like JSON, else a list of names."""
    stripped = text.strip()
    if stripped[:1] in ("[", "{", '"'):
        try:
            return loads_text(stripped, field=field, row=row)
        except ValueError as exc:
            raise FormatError(
                f"looks like JSON but cannot be parsed ({exc}); expected a JSON list of names "
                "or calls, or a text like 'search, fetch'",
                field=field,
                row=row,
            ) from None
    names = [piece.strip() for piece in re.split(r"\s*,\s*|\s*\n\s*", stripped)]
    for index, name in enumerate(names):
        if not name:
            raise FormatError(
                f"empty tool name at position {index} in {stripped!r}; expected names "
                "separated by commas",
                field=field,
                row=row,
            )
        if not _NAME.match(name):
            raise FormatError(
                f"{name!r} is not a tool name; write calls with arguments as JSON, e.g. "
                '[{"name": "search", "args": {"q": "x"}}]',
                field=field,
                row=row,
            )
    return names


def _arguments(
    value: Any, name: str, path: str, key: str, row: int | None, *, expected: bool, **extra: Any
) -> ToolCall:
    """The call ``name`` with arguments ``value``, found at ``path``.``key`` (joined on error)."""
    if value is None:
        return ToolCall(name=name, args=None if expected else {}, **extra)
    if type(value) is dict or isinstance(value, Mapping):
        return ToolCall(name=name, args=dict(value), **extra)
    if isinstance(value, str):
        call = ToolCall.parse(name, value, **extra)
        if expected:
            if call.parse_error is not None:
                raise FormatError(
                    f"the arguments of expected call {name!r} are not a JSON object: "
                    f"{call.parse_error}",
                    field=at(path, key),
                    row=row,
                )
            # The reference is its parsed value; how it was spelled does not matter.
            return replace(call, raw_arguments=None)
        return call
    if not expected:
        # The agent's arguments as a JSON array (or number...) are read like the same
        # value given as JSON text: one call with invalid arguments, scored, not an error.
        return ToolCall.parse(name, value, **extra)
    raise FormatError(
        f"expected the arguments of {name!r} as an object, got {describe(value)}",
        field=at(path, key),
        row=row,
    )


def call_from_value(
    value: Any, path: str, *, row: int | None = None, expected: bool = True
) -> ToolCall:
    """Read one call: a name, ``{"name", "args"}``, ``{"name": {args}}`` or OpenAI's shape.

    For an expected call a bare name (or absent/``null`` arguments) means
    "compare the name only" (``args=None``); for a call the agent made it
    means "no arguments" (``args={}``), and an unparsable argument string is
    kept raw with the parse error recorded instead of raising.

    >>> call_from_value({"get_weather": {"city": "Paris"}}, "expected_tools[0]")
    ToolCall(name='get_weather', args={'city': 'Paris'}, id=None, raw_arguments=None, parse_error=None, result=None, is_error=False)
    """
    if type(value) is not dict:  # dicts (what JSON gives) skip the checks below
        if isinstance(value, ToolCall):
            return value
        if isinstance(value, str):
            if not value.strip():
                raise FormatError("expected a tool name, got an empty string", field=path, row=row)
            return ToolCall(name=value.strip(), args=None if expected else {})
        if not isinstance(value, Mapping):
            raise FormatError(
                f"expected a tool name or a call object, got {describe(value)}",
                field=path,
                row=row,
            )
    if "function" in value and isinstance(value["function"], Mapping):
        return _openai_call(value, path, row, expected=expected)
    if "name" in value:
        return _named_call(value, path, row, expected=expected)
    if len(value) == 1 and next(iter(value)) not in _CALL_KEYS:
        ((name, args),) = value.items()
        if not isinstance(name, str) or not name:
            raise FormatError(f"expected a tool name as the key, got {name!r}", field=path, row=row)
        return _arguments(args, name, path, name, row, expected=expected)
    raise FormatError(
        f"expected a call as {{'name': ..., 'args': {{...}}}} or {{'tool_name': {{args}}}}, "
        f"got {describe(value)}",
        field=path,
        row=row,
    )


def _openai_call(
    value: Mapping[str, Any], path: str, row: int | None, *, expected: bool
) -> ToolCall:
    """OpenAI's ``{"id", "function": {"name", "arguments"}}``."""
    function = value["function"]
    name = function.get("name")
    if not isinstance(name, str) or not name:
        raise FormatError(
            f"expected a tool name, got {describe(name)}",
            field=at(path, "function.name"),
            row=row,
        )
    call_id = value.get("id")
    return _arguments(
        function.get("arguments"),
        name,
        path,
        "function.arguments",
        row,
        expected=expected,
        id=None if call_id is None else str(call_id),
    )


def _named_call(
    value: Mapping[str, Any], path: str, row: int | None, *, expected: bool
) -> ToolCall:
    """``{"name", "args" | "arguments", "id", "result", "is_error"}`` (tooleval's own shape)."""
    if not value.keys() <= _CALL_KEYS:
        unknown = sorted(set(value) - _CALL_KEYS)
        raise FormatError(
            f"unknown key(s) {unknown} in a call; expected name, args (or arguments), id",
            field=path,
            row=row,
        )
    name = value["name"]
    if not isinstance(name, str) or not name:
        raise FormatError(
            f"expected a tool name, got {describe(name)}", field=at(path, "name"), row=row
        )
    if "args" in value and "arguments" in value:
        raise FormatError("both 'args' and 'arguments' given; use one", field=path, row=row)
    key = "args" if "args" in value else "arguments"
    call_id = value.get("id")
    extra: dict[str, Any] = {"id": None if call_id is None else str(call_id)}
    if value.get("result") is not None:
        extra["result"] = value["result"]
    if value.get("is_error"):
        extra["is_error"] = bool(value["is_error"])
    if value.get("parse_error") is not None and isinstance(value.get("raw_arguments"), str):
        # A call tooleval itself recorded as unparsable: keep it exactly.
        return ToolCall(
            name=name,
            args={},
            raw_arguments=value["raw_arguments"],
            parse_error=str(value["parse_error"]),
            **extra,
        )
    return _arguments(value.get(key), name, path, key, row, expected=expected, **extra)


def _call_list(value: Any, field: str, row: int | None, *, expected: bool) -> list[ToolCall]:
    if type(value) is not list and (
        isinstance(value, str | bytes) or not isinstance(value, Sequence)
    ):
        raise FormatError(
            f"expected a list of tool names or calls, got {describe(value)}", field=field, row=row
        )
    return [
        call_from_value(entry, item(field, index), row=row, expected=expected)
        for index, entry in enumerate(value)
    ]


def _reference(ref: Any, calls: Sequence[ToolCall], path: str, row: int | None) -> int:
    """Resolve one ordering reference (an index or a unique name) to an index."""
    if isinstance(ref, bool) or not isinstance(ref, int | str):
        raise FormatError(
            f"expected a call index or name, got {describe(ref)}", field=path, row=row
        )
    if isinstance(ref, int):
        if not 0 <= ref < len(calls):
            raise FormatError(
                f"index {ref} is out of range; there are {len(calls)} expected calls "
                "(indices start at 0)",
                field=path,
                row=row,
            )
        return ref
    found = [i for i, call in enumerate(calls) if call.name == ref]
    if not found:
        raise FormatError(
            f"{ref!r} names no expected call; calls are {[c.name for c in calls]}",
            field=path,
            row=row,
        )
    if len(found) > 1:
        raise FormatError(
            f"{ref!r} occurs {len(found)} times in calls (at {found}); use its 0-based index",
            field=path,
            row=row,
        )
    return found[0]


def _ordered(value: Mapping[str, Any], field: str, row: int | None) -> ExpectedTools:
    """``{"calls", "order" | "before" | "groups"}``: the calls and their ordering constraints."""
    unknown = sorted(set(value) - _ORDER_KEYS)
    if unknown:
        raise FormatError(
            f"unknown key(s) {unknown}; expected calls with order, before or groups",
            field=field,
            row=row,
        )
    calls = _call_list(value["calls"], at(field, "calls"), row, expected=True)
    order = _order_word(value, field, row)
    if "before" not in value and "groups" not in value:
        return ExpectedTools(tuple(calls), () if order == "any" else None)
    pairs: set[tuple[int, int]] = set()
    if "before" in value:
        pairs |= _before_pairs(value["before"], calls, at(field, "before"), row)
    if "groups" in value:
        pairs |= _group_pairs(value["groups"], calls, at(field, "groups"), row)
    _refuse_contradictions(pairs, calls, field, row)
    return ExpectedTools(tuple(calls), tuple(sorted(pairs)))


def _order_word(value: Mapping[str, Any], field: str, row: int | None) -> Any:
    """The ``order`` word (``listed``, ``any`` or absent), checked against the constraints."""
    order = value.get("order")
    if order is not None and order not in ("listed", "any"):
        raise FormatError(
            f"expected 'listed' or 'any', got {describe(order)}", field=at(field, "order"), row=row
        )
    if order == "listed" and ("before" in value or "groups" in value):
        raise FormatError(
            "order 'listed' contradicts 'before'/'groups'; drop one of them",
            field=at(field, "order"),
            row=row,
        )
    return order


def _before_pairs(
    before: Any, calls: Sequence[ToolCall], bpath: str, row: int | None
) -> set[tuple[int, int]]:
    """``before``: a list of ``[earlier, later]`` call references, as index pairs."""
    if isinstance(before, str) or not isinstance(before, Sequence):
        raise FormatError(
            f"expected a list of [earlier, later] pairs, got {describe(before)}",
            field=bpath,
            row=row,
        )
    pairs: set[tuple[int, int]] = set()
    for index, pair in enumerate(before):
        ppath = item(bpath, index)
        if isinstance(pair, str) or not isinstance(pair, Sequence) or len(pair) != 2:
            raise FormatError(
                f"expected a pair [earlier, later], got {describe(pair)}", field=ppath, row=row
            )
        first = _reference(pair[0], calls, item(ppath, 0), row)
        second = _reference(pair[1], calls, item(ppath, 1), row)
        if first == second:
            raise FormatError(
                f"a call cannot come before itself ({calls[first].name!r})",
                field=ppath,
                row=row,
            )
        pairs.add((first, second))
    return pairs


def _group_pairs(
    groups: Any, calls: Sequence[ToolCall], gpath: str, row: int | None
) -> set[tuple[int, int]]:
    """``groups``: lists of calls, every call of an earlier group before every later one."""
    if isinstance(groups, str) or not isinstance(groups, Sequence):
        raise FormatError(
            f"expected a list of groups (lists of calls), got {describe(groups)}",
            field=gpath,
            row=row,
        )
    resolved: list[list[int]] = []
    seen: dict[int, str] = {}
    for gindex, group in enumerate(groups):
        path = item(gpath, gindex)
        if isinstance(group, str) or not isinstance(group, Sequence):
            raise FormatError(
                f"expected a list of call names or indices, got {describe(group)}",
                field=path,
                row=row,
            )
        members = []
        for mindex, ref in enumerate(group):
            where = item(path, mindex)
            index = _reference(ref, calls, where, row)
            if index in seen:
                raise FormatError(
                    f"call {index} ({calls[index].name!r}) is already in {seen[index]}",
                    field=where,
                    row=row,
                )
            seen[index] = path
            members.append(index)
        resolved.append(members)
    # Every earlier group before every later one, not only neighbours: a
    # missing middle call must not hide a violation between the outer ones.
    pairs: set[tuple[int, int]] = set()
    for earlier in range(len(resolved)):
        for later in range(earlier + 1, len(resolved)):
            pairs.update((a, b) for a in resolved[earlier] for b in resolved[later])
    return pairs


def _refuse_contradictions(
    pairs: set[tuple[int, int]], calls: Sequence[ToolCall], field: str, row: int | None
) -> None:
    if any((b, a) in pairs for a, b in pairs):
        cycle = sorted((a, b) for a, b in pairs if (b, a) in pairs)[0]
        raise FormatError(
            f"contradictory order: {calls[cycle[0]].name!r} both before and after "
            f"{calls[cycle[1]].name!r}",
            field=field,
            row=row,
        )


def parse_expected_tools(
    value: Any, *, field: str = "expected_tools", row: int | None = None
) -> ExpectedTools | None:
    """Parse an ``expected_tools`` value; ``None`` when no reference is bound.

    Raises :class:`~tooleval.errors.FormatError` naming ``field`` (with the
    path inside the value) and ``row`` for anything it cannot read.
    """
    if isinstance(value, ExpectedTools):
        return value
    if _is_missing(value):
        return None
    if isinstance(value, bytes):
        value = value.decode()
    if isinstance(value, str):
        value = _decode(value, field, row)
        if isinstance(value, str):  # a JSON-encoded string such as "\"a, b\""
            return parse_expected_tools(value, field=field, row=row)
        if value is None:
            return None
    if isinstance(value, Mapping):
        if "calls" in value:
            return _ordered(value, field, row)
        return ExpectedTools((call_from_value(value, field, row=row),))
    return ExpectedTools(tuple(_call_list(value, field, row, expected=True)))


def parse_tool_calls(
    value: Any, *, field: str = "tools_called", row: int | None = None
) -> list[ToolCall] | None:
    """Parse a ``tools_called`` value: the calls an agent made (``None`` when absent).

    Same shapes as ``expected_tools`` except the ordering object; a bare name
    is a call with no arguments, and an unparsable argument string is kept.

    >>> [str(c) for c in parse_tool_calls('[{"name": "f", "arguments": "{\\\\"x\\\\": 1}"}]')]
    ['f(x=1)']
    """
    if _is_missing(value):
        return None
    if isinstance(value, bytes):
        value = value.decode()
    if isinstance(value, str):
        value = _decode(value, field, row)
        if isinstance(value, str):
            return parse_tool_calls(value, field=field, row=row)
        if value is None:
            return None
    if isinstance(value, Mapping):
        return [call_from_value(value, field, row=row, expected=False)]
    return _call_list(value, field, row, expected=False)
