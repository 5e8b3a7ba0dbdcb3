"""What counts as "no value" in a row, and the one rule for the agent's calls.

A cell with no value (a JSON null, an empty CSV/TSV cell, a Parquet null, or a text
that spreadsheets and pandas write for one) is never read as "the agent called no
tool": ``tooleval score``, ``evaluate()`` and ``tooleval dataset check`` refuse a row
whose ``tools_called`` has none, with :data:`MISSING_CALLS`; ``[]`` is no calls.

>>> no_value(None), no_value(" "), no_value("NaN"), no_value([])
('null', 'empty cell', "'NaN', read as no value", None)
"""

from __future__ import annotations

from typing import Any

__all__ = ["MISSING_CALLS", "NULL_MARKERS", "no_value"]

#: Said of a row whose ``tools_called`` has no value (absent key, null, an empty cell).
MISSING_CALLS = (
    'a missing value is not "no calls"; write [] for a row where the agent called no tool'
)
#: Cell texts that mean "no value" (pandas and spreadsheets write them for an empty cell).
NULL_MARKERS = frozenset({"nan", "none", "null", "na", "n/a", "<na>", "nat"})


def no_value(value: Any) -> str | None:
    """How a cell says it has no value, or None when it holds one."""
    if value is None:
        return "null"
    if isinstance(value, float) and value != value:
        return "NaN"
    if isinstance(value, str) and not value.strip():
        return "empty cell"
    if isinstance(value, str) and value.strip().lower() in NULL_MARKERS:
        return f"{value!r}, read as no value"
    return None
