"""Argument matchers one by one."""

from __future__ import annotations

import pytest

from tooleval.errors import ConfigError
from tooleval.matching import (
    MISSING,
    CallableMatcher,
    Exact,
    Ignore,
    Normalized,
    Numeric,
    Similarity,
    deep_equal,
)


@pytest.mark.parametrize(
    ("expected", "actual", "score"),
    [
        ("a", "a", 1.0),
        ("a", "A", 0.0),
        (1, True, 0.0),
        (True, 1, 0.0),
        (1, 1.0, 0.0),
        (0, False, 0.0),
        ({"a": 1, "b": {"c": [1, 2]}}, {"b": {"c": [1, 2]}, "a": 1}, 1.0),
        ({"a": 1}, {"a": 1, "b": 2}, 0.0),
        ([1, 2], [2, 1], 0.0),
        ([1, 2], (1, 2), 1.0),
        (None, None, 1.0),
        ("x", MISSING, 0.0),
        (None, MISSING, 0.0),
    ],
)
def test_exact(expected, actual, score):
    assert Exact()(expected, actual) == score


def test_deep_equal_missing_only_equals_missing():
    assert deep_equal(MISSING, MISSING)
    assert not deep_equal(MISSING, None)


def test_normalized_folds_case_and_whitespace_recursively():
    m = Normalized()
    assert m("  New\tYork ", "new york") == 1.0
    assert m({"q": ["A  b"]}, {"q": ["a b"]}) == 1.0
    assert m("new york", "newyork") == 0.0
    assert m(1, True) == 0.0
    assert m("a", MISSING) == 0.0


def test_numeric_tolerances_and_int_float_option():
    assert Numeric()(1, 1.0) == 1.0
    assert Numeric(int_float_equal=False)(1, 1.0) == 0.0
    assert Numeric(int_float_equal=False)(1.0, 1.0) == 1.0
    assert Numeric(abs_tol=0.01)(30, 30.009) == 1.0
    assert Numeric(abs_tol=0.01)(30, 30.02) == 0.0
    assert Numeric(rel_tol=0.1)(100, 109) == 1.0
    assert Numeric(rel_tol=0.1)(100, 120) == 0.0
    assert Numeric()(1, True) == 0.0  # booleans are not numbers
    assert Numeric(abs_tol=0.5)([1, {"x": 2}], [1.2, {"x": 2.4}]) == 1.0
    assert Numeric()("a", "a") == 1.0
    assert Numeric()(1, MISSING) == 0.0


@pytest.mark.parametrize("bad", [-1, "x", float("nan")])
def test_numeric_rejects_bad_tolerance(bad):
    with pytest.raises(ConfigError, match="abs_tol"):
        Numeric(abs_tol=bad)


def test_similarity_methods_and_threshold():
    lev = Similarity()
    assert lev("abc", "abc") == 1.0
    assert 0 < lev("kitten", "sitting") < 1
    jw = Similarity(method="jaro_winkler")
    assert jw("martha", "marhta") == pytest.approx(0.961, abs=1e-3)
    assert Similarity(min_score=0.9)("kitten", "sitting") == 0.0
    assert Similarity(min_score=0.5)("kitten", "sitting") == pytest.approx(lev("kitten", "sitting"))
    assert Similarity(min_score=0.5).pass_score == 0.5
    assert Similarity().pass_score == 1.0
    assert Similarity(case_sensitive=False)("PARIS", "paris") == 1.0
    assert Similarity()("PARIS", "paris") < 1.0
    assert Similarity()(3, 3) == 1.0 and Similarity()(3, "3") == 0.0
    assert Similarity()("a", MISSING) == 0.0


def test_similarity_rejects_bad_config():
    with pytest.raises(ConfigError, match="unknown method"):
        Similarity(method="cosine")
    with pytest.raises(ConfigError, match="min_score"):
        Similarity(min_score=2)


def test_ignore_and_callable():
    assert Ignore()("a", "b") == 1.0
    m = CallableMatcher(lambda e, a: a.startswith(e))
    assert m.name == "<lambda>"
    assert m("ab", "abc") == 1.0 and m("ab", "b") == 0.0
    assert m("ab", MISSING) == 0.0
    half = CallableMatcher(lambda e, a: 0.5, name="half")
    assert half(1, 2) == 0.5


def test_callable_bad_result_or_exception_is_config_error():
    with pytest.raises(ConfigError, match="returned 2"):
        CallableMatcher(lambda e, a: 2, name="two")(1, 1)

    def boom(expected, actual):
        raise ValueError("nope")

    with pytest.raises(ConfigError, match="'boom' raised ValueError"):
        CallableMatcher(boom)(1, 1)
    with pytest.raises(ConfigError, match="callable"):
        CallableMatcher(42)  # type: ignore[arg-type]


def test_callable_may_accept_missing():
    m = CallableMatcher(lambda e, a: a is MISSING, accepts_missing=True, name="omit")
    assert m("x", MISSING) == 1.0
