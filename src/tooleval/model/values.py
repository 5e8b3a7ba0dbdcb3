"""Reference values that are more than one value: omission and acceptable alternatives.

References often admit more than one right answer: a city may be ``"NYC"`` or
``"New York"``, a unit may be left out. :class:`AnyOf` holds the acceptable
values for one argument and scores 1.0 when the actual value equals one of
them (0.0 otherwise). ``optional=True`` also accepts an argument the agent did
not pass: the :data:`MISSING` sentinel, which stands for "the actual call has
no such argument" everywhere in tooleval. Both are part of the model because
importers (BFCL's acceptable-value lists) build them and matchers read them.

Equality is type-aware: ``True`` does not equal ``1`` (Python's ``==`` says it
does), while ``2`` equals ``2.0``. Containers compare element by element with
the same rule. Pass ``normalise=`` to compare transformed values (both sides
go through it), or use a matcher as one of the values to delegate to it.

>>> unit = AnyOf(["celsius", "c"], optional=True)
>>> unit(unit, "c"), unit(unit, "kelvin"), unit(unit, MISSING)
(1.0, 0.0, 1.0)
>>> AnyOf([1, 2]).match(True)
0.0
>>> bool(MISSING), MISSING
(False, MISSING)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["MISSING", "AnyOf", "values_equal", "walk_equal"]


class _Missing:
    """Sentinel for "the actual call has no such argument"."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


def walk_equal(
    expected: Any,
    actual: Any,
    leaf: Callable[[Any, Any], bool],
    inner: Callable[[Any, Any], bool] | None = None,
) -> bool:
    """Structural equality whose every value that is not a container is judged by ``leaf``.

    Two mappings are equal with the same keys and equal values; two lists or
    tuples (a tuple may equal a list) with equal elements in order; any other
    pair is ``leaf(expected, actual)``, which decides what a leaf equal means
    (types kept apart, numbers within a tolerance, ...). The values inside
    containers are compared by this same walk, or by ``inner`` when given: an
    equality that applies the same rule (``deep_equal`` passes itself, for its
    shortcut on plain JSON values).

    >>> walk_equal({"a": [1, 2]}, {"a": (1, 2.5)}, lambda e, a: abs(e - a) <= 0.5)
    True
    >>> walk_equal({"a": 1}, {"a": 1, "b": 2}, lambda e, a: True)
    False
    """
    mappings = isinstance(expected, Mapping) and isinstance(actual, Mapping)
    if not mappings and not (
        isinstance(expected, list | tuple) and isinstance(actual, list | tuple)
    ):
        return leaf(expected, actual)
    if mappings:
        if expected.keys() != actual.keys():
            return False
        pairs: Iterable[tuple[Any, Any]] = ((expected[k], actual[k]) for k in expected)
    else:
        if len(expected) != len(actual):
            return False
        pairs = zip(expected, actual, strict=True)
    if inner is None:
        return all(walk_equal(e, a, leaf) for e, a in pairs)
    return all(inner(e, a) for e, a in pairs)


def values_equal(expected: Any, actual: Any) -> bool:
    """Equality that keeps booleans apart from numbers, recursively.

    >>> values_equal([1, {"a": 2.0}], [1.0, {"a": 2}]), values_equal(True, 1)
    (True, False)
    """
    return walk_equal(expected, actual, _typed_leaf)


def _typed_leaf(expected: Any, actual: Any) -> bool:
    # Booleans only equal booleans; ints and floats compare by value; else the same type.
    if isinstance(expected, bool) or isinstance(actual, bool):
        return isinstance(expected, bool) and isinstance(actual, bool) and expected == actual
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return bool(expected == actual)
    return type(expected) is type(actual) and bool(expected == actual)


@dataclass(frozen=True, slots=True)
class AnyOf:
    """Acceptable values for one argument; also a :class:`Matcher`.

    ``values`` are compared in order; an element that is itself a matcher is
    called with ``(element, actual)``. ``optional`` accepts a missing
    argument. ``normalise`` (if given) is applied to both sides of every plain
    comparison, e.g. ``str.lower``.

    Used as a matcher, ``AnyOf`` reads the acceptable values from ``expected``
    when that is an ``AnyOf`` (so one instance can score many arguments) and
    from itself otherwise.

    >>> city = AnyOf(["new york", "nyc"], normalise=str.lower)
    >>> city(city, "NYC")
    1.0
    """

    values: tuple[Any, ...]
    optional: bool = False
    normalise: Callable[[Any], Any] | None = field(default=None, compare=False)
    name: str = field(default="any_of", init=False)

    def __init__(
        self,
        values: Iterable[Any],
        *,
        optional: bool = False,
        normalise: Callable[[Any], Any] | None = None,
    ) -> None:
        if isinstance(values, str | bytes | Mapping):
            raise TypeError(
                f"AnyOf needs a sequence of acceptable values, got {type(values).__name__}; "
                "wrap a single value in a list"
            )
        object.__setattr__(self, "values", tuple(values))
        object.__setattr__(self, "optional", bool(optional))
        object.__setattr__(self, "normalise", normalise)
        object.__setattr__(self, "name", "any_of")

    def match(self, actual: Any) -> float:
        """1.0 when ``actual`` is acceptable, else 0.0."""
        if actual is MISSING:
            return 1.0 if self.optional else 0.0
        for value in self.values:
            if isinstance(value, AnyOf) or _is_matcher(value):
                if value(value, actual) >= 1.0:
                    return 1.0
                continue
            if self.normalise is not None:
                if values_equal(_safe(self.normalise, value), _safe(self.normalise, actual)):
                    return 1.0
            elif values_equal(value, actual):
                return 1.0
        return 0.0

    def __call__(self, expected: Any, actual: Any) -> float:
        acceptable = expected if isinstance(expected, AnyOf) else self
        return acceptable.match(actual)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly form: ``{"any_of": [...], "optional": bool}``."""
        return {
            "any_of": [v.to_dict() if isinstance(v, AnyOf) else v for v in self.values],
            "optional": self.optional,
        }

    def __repr__(self) -> str:
        extra = ", optional=True" if self.optional else ""
        return f"AnyOf({list(self.values)!r}{extra})"


def _safe(normalise: Callable[[Any], Any], value: Any) -> Any:
    # A normaliser written for strings must not crash on a number: compare raw.
    try:
        return normalise(value)
    except (TypeError, AttributeError, ValueError):
        return value


def _is_matcher(value: Any) -> bool:
    # The matcher contract (tooleval.matching.base.Matcher): a named callable, not a class.
    return callable(value) and hasattr(value, "name") and not isinstance(value, type)
