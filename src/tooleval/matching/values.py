"""Argument matchers: compare one expected argument value with the actual one.

Every matcher is a small frozen object, ``matcher(expected, actual) -> float``
in [0, 1], with a ``name`` and a JSON-safe :meth:`spec` so the exact
configuration can be stored with a result and rebuilt by
:func:`tooleval.matching.resolve_matcher`. ``actual`` is :data:`MISSING` when
the agent did not pass the key.

A matcher may also carry ``pass_score``: the lowest score that still counts as
"this argument matches" for metrics that need a yes/no per call (F1, Tool
Correctness, trajectory match). It is 1.0 unless a matcher says otherwise
(string similarity with ``min_score``).

>>> Exact()({"city": "Paris", "days": 2}, {"days": 2, "city": "Paris"})
1.0
>>> Exact()(1, True)
0.0
>>> Normalized()("  New   York ", "new york")
1.0
>>> Numeric(abs_tol=0.01)(30, 30.004)
1.0
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tooleval.errors import ConfigError
from tooleval.model import MISSING
from tooleval.model.values import walk_equal
from tooleval.user_deadline import DEADLINE_ENV, DeadlinePassed, bounded, user_code_seconds

__all__ = [
    "CallableMatcher",
    "Exact",
    "Ignore",
    "Normalized",
    "Numeric",
    "Similarity",
    "deep_equal",
]


_NoneType = type(None)
# Concrete JSON types that deep_equal never finds equal to a value of another
# of these types (tuple is left out: a tuple may equal a list).
_DISTINCT_KINDS = frozenset({str, int, float, bool, _NoneType, dict, list})


def deep_equal(expected: Any, actual: Any) -> bool:
    """Structural equality that keeps JSON types apart.

    Dicts compare regardless of key order, lists and tuples element by element,
    and ``True`` never equals ``1`` nor ``1`` equals ``1.0`` (a model that sends
    a float where an int was expected sent something else).

    >>> deep_equal({"a": [1, {"b": "x"}]}, {"a": (1, {"b": "x"})})
    True
    >>> deep_equal(1, 1.0), deep_equal(True, 1)
    (False, False)
    >>> deep_equal({"x": float("nan")}, {"x": float("nan")})  # NaN is the same as NaN
    True
    """
    # Fast path: the concrete types a JSON parser produces, checked with
    # ``type(x) is`` (ABC isinstance checks cost several times more); every
    # other value takes the general path below, which defines the semantics.
    kind = type(expected)
    if kind is type(actual):
        if kind is str or kind is int or kind is bool or kind is _NoneType:
            same: bool = expected == actual
            return same
        if kind is float:  # NaN equals NaN: a value is the same as itself (docs/metrics.md)
            nan_pair: bool = expected != expected and actual != actual
            return expected == actual or nan_pair
        if kind is dict:
            if len(expected) != len(actual):
                return False
            for key, value in expected.items():
                if key not in actual or not deep_equal(value, actual[key]):
                    return False
            return True
        if kind is list:
            if len(expected) != len(actual):
                return False
            for e, a in zip(expected, actual, strict=True):  # noqa: SIM110 - faster than all()
                if not deep_equal(e, a):
                    return False
            return True
    elif kind in _DISTINCT_KINDS and type(actual) in _DISTINCT_KINDS:
        return False
    return _deep_equal_general(expected, actual)


def _deep_equal_general(expected: Any, actual: Any) -> bool:
    return walk_equal(expected, actual, _json_leaf, deep_equal)


def _json_leaf(expected: Any, actual: Any) -> bool:
    if actual is MISSING or expected is MISSING:
        return expected is actual
    if _json_kind(expected) != _json_kind(actual):
        return False
    return bool(expected == actual) or (_is_nan(expected) and _is_nan(actual))


def _is_nan(value: Any) -> bool:
    """Whether ``value`` is a float NaN (which ``==`` never finds equal to itself)."""
    return isinstance(value, float) and value != value


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    return type(value).__name__


@dataclass(frozen=True, slots=True)
class Exact:
    """Deep equality (see :func:`deep_equal`): 1.0 or 0.0.

    >>> Exact()("4471", "4417")
    0.0
    """

    name: str = field(default="exact", init=False)
    pass_score: float = field(default=1.0, init=False)

    def __call__(self, expected: Any, actual: Any) -> float:
        return 1.0 if deep_equal(expected, actual) else 0.0

    def spec(self) -> Any:
        return "exact"


_SPACE = re.compile(r"\s+")


def _normalize(value: Any, fold: bool = True) -> Any:
    if isinstance(value, str):
        text = _SPACE.sub(" ", value).strip()
        return text.casefold() if fold else text
    if isinstance(value, Mapping):
        return {k: _normalize(v, fold) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_normalize(v, fold) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class Normalized:
    """Deep equality after case-folding strings and collapsing whitespace.

    ``case_sensitive=True`` keeps case (whitespace is still collapsed);
    ``numeric_text=True`` first reads number-like text as a number, so
    ``"2"``, ``"2.0"`` and ``2`` are equal (see
    :func:`tooleval.matching.structural.number_from_text`).

    >>> Normalized()({"q": "Hello  World"}, {"q": "hello world "})
    1.0
    >>> Normalized(case_sensitive=True)("Hello  World", "hello world")
    0.0
    >>> Normalized(numeric_text=True)(["2", " x "], [2.0, "X"])
    1.0
    """

    case_sensitive: bool = False
    numeric_text: bool = False
    name: str = field(default="normalized", init=False)
    pass_score: float = field(default=1.0, init=False)

    def __post_init__(self) -> None:
        for key in ("case_sensitive", "numeric_text"):
            if not isinstance(getattr(self, key), bool):
                raise ConfigError(
                    f"normalized matcher: {key} must be true or false, got {getattr(self, key)!r}",
                    field=key,
                )

    def __call__(self, expected: Any, actual: Any) -> float:
        if actual is MISSING:
            return 0.0
        fold = not self.case_sensitive
        expected, actual = _normalize(expected, fold), _normalize(actual, fold)
        if self.numeric_text:
            from tooleval.matching.structural import _coerce

            expected, actual = _coerce(expected), _coerce(actual)
        return 1.0 if deep_equal(expected, actual) else 0.0

    def spec(self) -> Any:
        if not self.case_sensitive and not self.numeric_text:
            return "normalized"
        return {
            "normalized": {
                "case_sensitive": self.case_sensitive,
                "numeric_text": self.numeric_text,
            }
        }


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class Numeric:
    """Numbers equal within ``abs_tol`` or ``rel_tol`` (as :func:`math.isclose`).

    ``int_float_equal`` (default True) lets ``1`` match ``1.0``; set it False
    to require the same JSON type as well. Values that are not both numbers
    are compared with :func:`deep_equal` (lists and dicts recurse).

    >>> Numeric(rel_tol=0.1)(300, 30)
    0.0
    >>> Numeric(int_float_equal=False)(1, 1.0)
    0.0
    """

    abs_tol: float = 0.0
    rel_tol: float = 1e-9
    int_float_equal: bool = True
    name: str = field(default="numeric", init=False)
    pass_score: float = field(default=1.0, init=False)

    def __post_init__(self) -> None:
        for key in ("abs_tol", "rel_tol"):
            value = getattr(self, key)
            if not _is_number(value) or value < 0 or math.isnan(value):
                raise ConfigError(
                    f"numeric matcher: {key} must be a number >= 0, got {value!r}", field=key
                )

    def __call__(self, expected: Any, actual: Any) -> float:
        return 1.0 if walk_equal(expected, actual, self._leaf_equal) else 0.0

    def _leaf_equal(self, expected: Any, actual: Any) -> bool:
        if actual is MISSING:
            return False
        if _is_number(expected) and _is_number(actual):
            if not self.int_float_equal and type(expected) is not type(actual):
                return False
            if _is_nan(expected) or _is_nan(actual):
                return _is_nan(expected) and _is_nan(actual)
            return math.isclose(expected, actual, rel_tol=self.rel_tol, abs_tol=self.abs_tol)
        return deep_equal(expected, actual)

    def spec(self) -> Any:
        return {
            "numeric": {
                "abs_tol": self.abs_tol,
                "rel_tol": self.rel_tol,
                "int_float_equal": self.int_float_equal,
            }
        }


_SIMILARITY_METHODS = ("levenshtein", "jaro_winkler")


@dataclass(frozen=True, slots=True)
class Similarity:
    """String similarity in [0, 1] via rapidfuzz (``levenshtein`` or ``jaro_winkler``).

    Scores below ``min_score`` become 0.0. Metrics that need a yes/no per
    argument count a score of at least ``min_score`` (1.0 when unset) as a
    match. Non-string values fall back to :func:`deep_equal`.

    >>> round(Similarity()("kitten", "sitting"), 3)
    0.571
    >>> Similarity(min_score=0.8)("kitten", "sitting")
    0.0
    """

    method: str = "levenshtein"
    min_score: float | None = None
    case_sensitive: bool = True
    name: str = field(default="similarity", init=False)

    def __post_init__(self) -> None:
        if self.method not in _SIMILARITY_METHODS:
            raise ConfigError(
                f"similarity matcher: unknown method {self.method!r}; "
                f"expected one of {', '.join(_SIMILARITY_METHODS)}",
                field="method",
            )
        if self.min_score is not None and not (
            _is_number(self.min_score) and 0.0 <= self.min_score <= 1.0
        ):
            raise ConfigError(
                f"similarity matcher: min_score must be in [0, 1], got {self.min_score!r}",
                field="min_score",
            )

    @property
    def pass_score(self) -> float:
        return 1.0 if self.min_score is None else float(self.min_score)

    def __call__(self, expected: Any, actual: Any) -> float:
        if actual is MISSING:
            return 0.0
        if not (isinstance(expected, str) and isinstance(actual, str)):
            return 1.0 if deep_equal(expected, actual) else 0.0
        # rapidfuzz is imported here so that `import tooleval` stays light.
        from rapidfuzz.distance import JaroWinkler, Levenshtein

        if not self.case_sensitive:
            expected, actual = expected.casefold(), actual.casefold()
        if self.method == "levenshtein":
            score = Levenshtein.normalized_similarity(expected, actual)
        else:
            score = JaroWinkler.similarity(expected, actual)
        score = min(1.0, max(0.0, float(score)))
        if self.min_score is not None and score < self.min_score:
            return 0.0
        return score

    def spec(self) -> Any:
        return {
            "similarity": {
                "method": self.method,
                "min_score": self.min_score,
                "case_sensitive": self.case_sensitive,
            }
        }


@dataclass(frozen=True, slots=True)
class Ignore:
    """Skip this argument: it is left out of the comparison entirely.

    Argument comparators drop ignored keys from the mean (so an ignored
    ``request_id`` neither helps nor hurts); called directly it returns 1.0.

    >>> Ignore()("a81f", "ffff")
    1.0
    """

    name: str = field(default="ignore", init=False)
    pass_score: float = field(default=1.0, init=False)

    def __call__(self, expected: Any, actual: Any) -> float:
        return 1.0

    def spec(self) -> Any:
        return "ignore"


@dataclass(frozen=True, slots=True)
class CallableMatcher:
    """Wrap a user function ``(expected, actual) -> float | bool``.

    A missing key scores 0.0 without calling the function unless
    ``accepts_missing`` is true (then the function sees :data:`MISSING`).
    The function's result must be a bool or a number in [0, 1]. Stored
    results record the function by ``name``; register it with
    :func:`tooleval.matching.register_matcher` to re-score by name later.

    >>> m = CallableMatcher(lambda e, a: e.lower() == a.lower(), name="lower")
    >>> m("Paris", "PARIS"), m("Paris", MISSING)
    (1.0, 0.0)
    """

    function: Callable[[Any, Any], float | bool]
    name: str = ""
    accepts_missing: bool = False
    pass_score: float = 1.0
    # Each call's deadline ($TOOLEVAL_USER_CODE_DEADLINE, read when the matcher is built).
    seconds: float | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not callable(self.function):
            raise ConfigError(f"argument matcher must be callable, got {self.function!r}")
        if not self.name:
            label = getattr(self.function, "__name__", type(self.function).__name__)
            object.__setattr__(self, "name", label)
        if self.seconds is None:
            object.__setattr__(self, "seconds", user_code_seconds())

    def __call__(self, expected: Any, actual: Any) -> float:
        if actual is MISSING and not self.accepts_missing:
            return 0.0
        function = self.function
        try:
            value = bounded(
                lambda: function(expected, actual),
                self.seconds,
                what=f"argument matcher {self.name!r}",
            )
        except DeadlinePassed as exc:  # the row is not scored, saying which call and deadline
            raise ConfigError(
                f"{exc} (${DEADLINE_ENV} sets it; expected={expected!r}, actual={actual!r})"
            ) from None
        except Exception as exc:  # a user's bug must say which matcher failed
            raise ConfigError(
                f"argument matcher {self.name!r} raised {type(exc).__name__}: {exc} "
                f"(expected={expected!r}, actual={actual!r})"
            ) from exc
        return _as_unit_score(value, self.name)

    def spec(self) -> Any:
        return self.name


def _as_unit_score(value: Any, name: str) -> float:
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if _is_number(value) and 0.0 <= value <= 1.0:
        return float(value)
    raise ConfigError(
        f"argument matcher {name!r} returned {value!r}; expected a bool or a number in [0, 1]"
    )
