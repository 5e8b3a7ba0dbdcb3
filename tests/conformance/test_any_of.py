"""AnyOf as a generic matcher, independent of BFCL."""

from __future__ import annotations

import pytest

from tooleval.matching.base import Matcher
from tooleval.model import MISSING, AnyOf, values_equal


def test_matches_any_listed_value():
    unit = AnyOf(["celsius", "fahrenheit"])
    assert unit.match("celsius") == 1.0
    assert unit.match("fahrenheit") == 1.0
    assert unit.match("kelvin") == 0.0


def test_missing_is_accepted_only_when_optional():
    assert AnyOf(["c"], optional=True).match(MISSING) == 1.0
    assert AnyOf(["c"]).match(MISSING) == 0.0
    assert AnyOf([], optional=True).match(MISSING) == 1.0
    assert AnyOf([], optional=True).match("anything") == 0.0


def test_is_a_matcher_reading_values_from_expected():
    generic = AnyOf([])
    assert isinstance(generic, Matcher)
    assert generic.name == "any_of"
    assert generic(AnyOf([1, 2]), 2) == 1.0
    assert generic(AnyOf([1, 2]), 3) == 0.0
    own = AnyOf(["x"])
    assert own("ignored, not an AnyOf", "x") == 1.0


def test_type_aware_equality():
    assert AnyOf([1]).match(True) == 0.0
    assert AnyOf([True]).match(1) == 0.0
    assert AnyOf([2]).match(2.0) == 1.0
    assert AnyOf(["1"]).match(1) == 0.0
    assert AnyOf([None]).match(None) == 1.0


def test_containers_compare_elementwise():
    assert AnyOf([[1, 2], [2, 1]]).match([2, 1]) == 1.0
    assert AnyOf([[1, 2]]).match([1, 2, 3]) == 0.0
    assert AnyOf([{"a": [1.0]}]).match({"a": [1]}) == 1.0
    assert AnyOf([{"a": 1}]).match({"a": 1, "b": 2}) == 0.0
    assert values_equal((1, 2), [1, 2])


def test_normalise_applies_to_both_sides_and_tolerates_non_strings():
    city = AnyOf(["New York", "NYC"], normalise=str.lower)
    assert city.match("nyc") == 1.0
    assert city.match(5) == 0.0  # str.lower fails on an int: compared raw, no crash


def test_nested_matchers_are_delegated_to():
    inner = AnyOf(["a", "b"])
    outer = AnyOf([inner, "c"])
    assert outer.match("b") == 1.0
    assert outer.match("c") == 1.0
    assert outer.match("d") == 0.0


def test_rejects_a_bare_string_as_the_value_list():
    with pytest.raises(TypeError, match="sequence of acceptable values"):
        AnyOf("abc")


def test_to_dict_and_repr():
    assert AnyOf(["x"], optional=True).to_dict() == {"any_of": ["x"], "optional": True}
    assert repr(AnyOf([1])) == "AnyOf([1])"
