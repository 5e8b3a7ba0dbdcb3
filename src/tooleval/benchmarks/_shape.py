"""Small shape tests the benchmark detectors share.

>>> first_record([{"a": 1}]), first_record({"a": 1}), first_record([])
({'a': 1}, {'a': 1}, None)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tooleval.errors import FormatError

__all__ = ["CANONICAL_CALLS", "first_record", "is_canonical", "paired_places"]

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


def paired_places(reference: Any, prediction: Any, index: int | None) -> tuple[str, str]:
    """Where a benchmark row's reference and prediction stand, once both are checked to be objects.

    A reference-and-predictions reader (Seal-Tools, NESTFUL) names ``records[i]``
    and ``predictions[i]`` in its errors; either side may be None (absent).

    >>> paired_places({}, None, 3)
    ('records[3]', 'predictions[3]')
    >>> paired_places([], None, None)
    Traceback (most recent call last):
    ...
    tooleval.errors.FormatError: field record: expected an object per record, got list
    """
    where = f"records[{index}]" if index is not None else "record"
    pwhere = f"predictions[{index}]" if index is not None else "prediction"
    if reference is not None and not isinstance(reference, Mapping):
        raise FormatError(
            f"expected an object per record, got {type(reference).__name__}", field=where
        )
    if prediction is not None and not isinstance(prediction, Mapping):
        raise FormatError(
            f"expected an object per prediction, got {type(prediction).__name__}", field=pwhere
        )
    return where, pwhere
