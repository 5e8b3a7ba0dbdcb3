"""How argument values are kept in a diagnosis: plain JSON shared, anything else converted.

Diagnoses are stored and shown (JSONL, the run store, reports), so every
value they hold must be JSON-safe. Values parsed from JSON already are, and
are kept by reference (:func:`stored`); tuples, ``AnyOf``, ``MISSING`` and
other objects are converted (:func:`json_safe`). The metric registry records
a metric's parameters (matchers, functions) with the same :func:`json_safe`.

>>> json_safe(("a", 1))
['a', 1]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tooleval.model import MISSING

__all__ = ["json_safe", "stored"]

_NoneType = type(None)
_SCALARS = frozenset({str, int, float, bool, _NoneType})


def _plain(value: Any) -> bool:
    """Is ``value`` made only of exact JSON types (str-keyed dicts, lists, scalars)?"""
    kind = type(value)
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str or (type(item) not in _SCALARS and not _plain(item)):
                return False
        return True
    if kind is list:
        for item in value:  # noqa: SIM110 - faster than all()
            if type(item) not in _SCALARS and not _plain(item):
                return False
        return True
    return kind in _SCALARS


def stored(value: Any) -> Any:
    """``value`` as a diagnosis keeps it: shared when plain JSON, else :func:`json_safe`.

    Values parsed from JSON (every dataset row, every agent reply) are already
    what :func:`json_safe` would build, so they are kept by reference instead
    of copied: a diagnosis may share nested dicts and lists with the calls it
    describes. Nothing in tooleval changes either after scoring; a caller who
    edits a call's arguments in place after scoring it sees the edit in the
    result too. Any other value (tuples, AnyOf, MISSING, objects) is copied.

    >>> value = {"tags": ["a"]}
    >>> stored(value) is value, stored(("a",))
    (True, ['a'])
    """
    if _plain(value):
        return value
    return json_safe(value)


def json_safe(value: Any) -> Any:
    """A JSON-safe copy of ``value``, for stored diagnoses and recorded metric parameters.

    Tuples become lists and mapping keys strings; ``MISSING`` is null; an
    object becomes its ``to_dict()`` (``AnyOf``), else its ``spec()`` (a
    matcher), else its ``name`` or ``__name__`` (a function), else its repr.

    >>> json_safe((1, {"a": MISSING}))
    [1, {'a': None}]
    >>> json_safe({"check": len})
    {'check': 'len'}
    """
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value
    if kind is dict:
        return {k if type(k) is str else str(k): json_safe(v) for k, v in value.items()}
    if kind is list:
        return [json_safe(v) for v in value]
    if value is MISSING:
        return None
    if isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, Mapping):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return json_safe(to_dict())
    spec = getattr(value, "spec", None)
    if callable(spec):
        return json_safe(spec())
    name = getattr(value, "name", None) or getattr(value, "__name__", None)
    return str(name) if name else repr(value)
