"""Small shape tests the benchmark detectors share.

>>> first_record([{"a": 1}]), first_record({"a": 1}), first_record([])
({'a': 1}, {'a': 1}, None)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["CANONICAL_CALLS", "first_record", "is_canonical"]

#: Keys of tooleval's own rows: a record holding one is never a benchmark's.
CANONICAL_CALLS = ("tools_called", "messages", "expected_tools")


def first_record(value: Any) -> Mapping[str, Any] | None:
    """The object a detector looks at: the document, or a list's first element."""
    if isinstance(value, list):
        value = value[0] if value else None
    return value if isinstance(value, Mapping) else None


def is_canonical(row: Mapping[str, Any]) -> bool:
    """Whether ``row`` carries a canonical row's call fields."""
    return any(k in row for k in CANONICAL_CALLS)
