"""One sentence that says why a row scored what it did, written from its diagnosis.

Every deterministic metric builds its ``reason`` here so that the sentence
can only name what the diagnosis holds: missing calls, extra calls, order
violations, argument mismatches, unparsable arguments and (for
``tool_call_accuracy``) the first misaligned position.

>>> from tooleval.model import ArgumentCheck, Diagnosis
>>> d = Diagnosis(missing=[{"name": "issue_refund", "args": {}, "index": 2}],
...               arguments=[ArgumentCheck("cancel_order", "order_id", "4471", "4417", 0.0)])
>>> explain(d, "2 of 3 expected calls matched")
"2 of 3 expected calls matched; missing issue_refund; cancel_order.order_id expected '4471', got '4417'"
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooleval.model import ArgumentCheck, Diagnosis

__all__ = ["CAP_BYTES", "NAME_CHARS", "capped", "explain", "named", "short"]

_SHOWN = 3  # items of one kind named before "and N more"

#: The most bytes of compact JSON a value keeps in a diagnosis (docs/results.md).
CAP_BYTES = 1000


def capped(value: Any) -> Any:
    """``value`` as a diagnosis keeps it: whole up to :data:`CAP_BYTES` bytes of compact
    JSON, else a string of the first bytes of that JSON and what was cut.

    The compiled kernel cuts the same way, byte for byte, so that a multi-megabyte
    argument is not repeated in every metric's diagnosis of its row.

    >>> capped({"id": 7})
    {'id': 7}
    >>> capped("x" * 2000)[995:]
    'xxxxx... [cut: 2002 bytes of JSON, first 1000 shown]'
    """
    if value is None or type(value) in (bool, int, float):
        return value
    if type(value) is str and 6 * len(value) + 2 <= CAP_BYTES:  # JSON escapes at most 6x
        return value
    try:
        import orjson

        text = orjson.dumps(value)
    except TypeError:  # an int past 64 bits: the standard writer spells it the same
        import json

        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str).encode()
    if len(text) <= CAP_BYTES:
        return value
    shown = text[:CAP_BYTES].decode("utf-8", "ignore")  # whole characters only
    return f"{shown}... [cut: {len(text)} bytes of JSON, first {len(shown.encode())} shown]"


def short(value: Any, limit: int = 40) -> str:
    """``repr`` of a value, cut to ``limit`` characters.

    >>> short("x" * 50, limit=10)
    "'xxxxxx..."
    """
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


#: The most characters of a tool name or argument path a reason shows (longer ones are cut).
NAME_CHARS = 100


def named(name: Any) -> str:
    """A tool name or argument path as a reason says it: cut past :data:`NAME_CHARS`.

    >>> named("lookup_order"), named("x" * 200)[-5:]
    ('lookup_order', 'xx...')
    """
    text = str(name)
    return text if len(text) <= NAME_CHARS else text[: NAME_CHARS - 3] + "..."


def _names(entries: Sequence[dict[str, Any]]) -> str:
    names = [named(e.get("name", "?")) for e in entries]
    shown = ", ".join(names[:_SHOWN])
    return shown + (f" and {len(names) - _SHOWN} more" if len(names) > _SHOWN else "")


def _argument(check: ArgumentCheck) -> str:
    where = f"{named(check.tool)}.{named(check.key)}"
    if check.matcher == "unexpected_key":
        return f"{where} not expected, got {short(check.actual)}"
    if check.missing:
        return f"{where} missing (expected {short(check.expected)})"
    text = f"{where} expected {short(check.expected)}, got {short(check.actual)}"
    if 0.0 < check.score < 1.0:
        text += f" ({check.matcher} {check.score:.2f})"
    return text


def explain(diagnosis: Diagnosis, summary: str) -> str:
    """``summary`` followed by every kind of problem the diagnosis records.

    >>> explain(Diagnosis(), "all 2 expected calls matched")
    'all 2 expected calls matched'
    """
    parts = [summary]
    details = diagnosis.details
    misaligned = details.get("misaligned")
    if misaligned:
        parts.append(
            f"sequence differs at #{misaligned['position'] + 1} "
            f"(expected {named(misaligned['expected'])}, got {named(misaligned['actual'])})"
        )
    if diagnosis.missing:
        parts.append(f"missing {_names(diagnosis.missing)}")
    if diagnosis.extra:
        parts.append(f"extra {_names(diagnosis.extra)}")
    violations = diagnosis.order_violations
    if violations:
        text = "; ".join(violations[:_SHOWN])
        if len(violations) > _SHOWN:
            text += f" and {len(violations) - _SHOWN} more order violations"
        parts.append(text)
    # Unparsable arguments get their own sentence below.
    mismatches = [c for c in diagnosis.argument_mismatches if c.matcher != "parse_error"]
    if mismatches:
        text = "; ".join(_argument(c) for c in mismatches[:_SHOWN])
        if len(mismatches) > _SHOWN:
            text += f" and {len(mismatches) - _SHOWN} more argument mismatches"
        parts.append(text)
    for error in details.get("parse_errors", [])[:_SHOWN]:
        parts.append(
            f"arguments of {named(error['name'])} (call #{error['index'] + 1}) could not be parsed"
        )
    missing_values = details.get("missing_values")
    if missing_values:
        parts.append("output lacks " + ", ".join(short(v) for v in missing_values[:_SHOWN]))
    return "; ".join(parts)
