"""resolve_matcher / resolve_comparator / ArgumentComparator."""

from __future__ import annotations

import json

import pytest

from tooleval.errors import ConfigError
from tooleval.matching import (
    MISSING,
    ArgumentComparator,
    Exact,
    Normalized,
    Numeric,
    Similarity,
    matcher_names,
    register_matcher,
    resolve_comparator,
    resolve_matcher,
)
from tooleval.model import ToolCall


@pytest.mark.parametrize(
    ("spec", "kind"),
    [
        ("exact", Exact),
        ("normalized", Normalized),
        ("normalised", Normalized),
        ("numeric", Numeric),
        ({"numeric": {"abs_tol": 0.1}}, Numeric),
        ({"name": "numeric", "abs_tol": 0.1}, Numeric),
        ({"numeric": None}, Numeric),
        ('{"numeric": {"abs_tol": 0.1}}', Numeric),
        ("similarity", Similarity),
        ("levenshtein", Similarity),
        ({"jaro_winkler": {"min_score": 0.8}}, Similarity),
    ],
)
def test_resolve_matcher_forms(spec, kind):
    assert isinstance(resolve_matcher(spec), kind)


def test_resolve_matcher_keeps_matchers_and_wraps_callables():
    m = Numeric(abs_tol=1)
    assert resolve_matcher(m) is m

    def startswith(e, a):
        return str(a).startswith(str(e))

    wrapped = resolve_matcher(startswith)
    assert wrapped.name == "startswith" and wrapped("ab", "abc") == 1.0


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("fuzzy", "unknown argument matcher 'fuzzy'"),
        ({"fuzzy": {}}, "unknown argument matcher 'fuzzy'"),
        ({"numeric": {"abs": 1}}, "bad options for matcher 'numeric'"),
        ({"numeric": 3}, "must be a mapping"),
        ({"a": 1, "b": 2}, "names one matcher"),
        ("{not json", "not valid JSON"),
        (3, "must be a name"),
    ],
)
def test_resolve_matcher_errors(spec, message):
    with pytest.raises(ConfigError, match=message):
        resolve_matcher(spec)


def test_unknown_name_lists_known_names():
    with pytest.raises(ConfigError) as info:
        resolve_matcher("fuzzy")
    for name in ("exact", "normalized", "numeric", "similarity", "ignore", "any_of"):
        assert name in str(info.value)
    assert "any_of" in matcher_names()


def test_any_of_by_name_reads_alternatives_from_expected():
    m = resolve_matcher("any_of")
    assert m(["NYC", "New York"], "NYC") == 1.0
    assert m(["NYC", "New York"], "Boston") == 0.0
    assert m(["NYC"], MISSING) == 0.0
    assert m("NYC", "NYC") == 1.0


def test_any_of_with_values_and_optional():
    m = resolve_matcher({"any_of": {"values": ["c", "celsius"], "optional": True}})
    assert m("ignored", "c") == 1.0 and m("ignored", MISSING) == 1.0 and m("x", "k") == 0.0
    assert resolve_matcher({"any_of": ["a", "b"]})(None, "b") == 1.0
    with pytest.raises(ConfigError, match="any_of"):
        resolve_matcher({"any_of": {"vals": [1]}})


def test_expected_any_of_value_is_used_by_default_comparator():
    from tooleval.model import AnyOf

    cmp = resolve_comparator("exact")
    exp = ToolCall("f", {"unit": AnyOf(["c", "celsius"], optional=True), "city": "Paris"})
    assert cmp.compare(exp, ToolCall("f", {"city": "Paris"})).score == 1.0
    out = cmp.compare(exp, ToolCall("f", {"city": "Paris", "unit": "kelvin"}))
    assert out.score == 0.5
    check = next(c for c in out.checks if c.key == "unit")
    assert check.matcher == "any_of"
    json.dumps([c.to_dict() for c in out.checks])  # diagnosis stays JSON-safe


def test_register_matcher_by_name():
    register_matcher("first_char", lambda e, a: str(e)[:1] == str(a)[:1])
    assert resolve_matcher("first_char")("abc", "axe") == 1.0
    with pytest.raises(ConfigError):
        register_matcher("exact", lambda e, a: True)


REFUND_CONFIG = {
    "default": "exact",
    "tools": {"issue_refund": {"amount": {"numeric": {"abs_tol": 0.01}}, "request_id": "ignore"}},
    "keys": {"query": "normalized"},
}


def test_full_config_per_tool_and_per_key():
    cmp = resolve_comparator(REFUND_CONFIG)
    exp = ToolCall("issue_refund", {"order_id": "4471", "amount": 30, "request_id": "r1"})
    act = ToolCall("issue_refund", {"order_id": "4471", "amount": 30.004, "request_id": "zz"})
    out = cmp.compare(exp, act)
    assert out.score == 1.0 and out.matches
    assert sorted(c.key for c in out.checks) == ["amount", "order_id"]
    assert {c.key: c.matcher for c in out.checks}["amount"] == "numeric"
    search = cmp.compare(
        ToolCall("search", {"query": "A  B"}), ToolCall("search", {"query": "a b"})
    )
    assert search.score == 1.0
    # the per-tool amount rule does not leak to other tools
    other = cmp.compare(ToolCall("pay", {"amount": 30}), ToolCall("pay", {"amount": 30.004}))
    assert other.score == 0.0


def test_config_from_json_text_round_trips_through_spec():
    cmp = resolve_comparator(json.dumps(REFUND_CONFIG))
    spec = cmp.spec()
    json.dumps(spec)
    again = resolve_comparator(spec)
    assert again.spec() == spec
    assert resolve_comparator("exact").spec() == "exact"
    assert resolve_comparator(None).spec() == "exact"
    assert resolve_comparator(cmp) is cmp


def test_precedence_tool_key_then_key_then_tool_star_then_default():
    cmp = resolve_comparator(
        {
            "default": "exact",
            "keys": {"q": "normalized"},
            "tools": {"t": {"*": "ignore", "q": "exact"}, "u": {"*": "normalized"}},
        }
    )
    assert cmp.matcher_for("t", "q").name == "exact"
    assert cmp.matcher_for("t", "other").name == "ignore"
    assert cmp.matcher_for("u", "q").name == "normalized"
    assert cmp.matcher_for("v", "q").name == "normalized"
    assert cmp.matcher_for("v", "z").name == "exact"


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        ({"tools": ["x"]}, "args.tools"),
        ({"tools": {"t": "exact"}}, "args.tools.t"),
        ({"tools": {"t": {"k": "fuzzy"}}}, "args.tools.t.k"),
        ({"keys": {"k": "fuzzy"}}, "args.keys.k"),
        ({"default": "fuzzy"}, "args.default"),
    ],
)
def test_config_errors_name_the_field(spec, field):
    with pytest.raises(ConfigError) as info:
        resolve_comparator(spec)
    assert info.value.field == field


def test_missing_key_scores_zero_extra_keys_ignored():
    cmp = ArgumentComparator()
    out = cmp.compare(ToolCall("f", {"a": 1, "b": 2}), ToolCall("f", {"a": 1, "c": 3}))
    assert out.score == 0.5 and not out.matches
    missing = next(c for c in out.checks if c.key == "b")
    assert missing.missing and missing.actual is None and missing.expected == 2


def test_extra_keys_mismatch_option():
    cmp = ArgumentComparator()
    out = cmp.compare(
        ToolCall("f", {"a": 1}), ToolCall("f", {"a": 1, "c": 3}), extra_keys="mismatch"
    )
    assert out.score == 0.5
    assert any(c.key == "c" and c.matcher == "unexpected_key" for c in out.checks)
    with pytest.raises(ConfigError, match="extra_keys"):
        cmp.compare(ToolCall("f", {}), ToolCall("f", {}), extra_keys="maybe")


def test_no_args_expected_and_names_only():
    cmp = ArgumentComparator()
    assert cmp.compare(ToolCall("f", {}), ToolCall("f", {})).score == 1.0
    assert cmp.compare(ToolCall("f", {}), ToolCall("f", {"x": 1})).score == 0.0
    names_only = ToolCall("f", None)
    assert cmp.compare(names_only, ToolCall("f", {"x": 1})).score == 1.0
    assert cmp.compare(names_only, ToolCall.parse("f", "{bad")).score == 1.0


def test_parse_error_matches_no_argument():
    cmp = ArgumentComparator()
    bad = ToolCall.parse("f", "{bad json")
    out = cmp.compare(ToolCall("f", {"a": 1}), bad)
    assert out.score == 0.0 and not out.matches
    assert [c.matcher for c in out.checks] == ["parse_error"]
    assert cmp.compare(ToolCall("f", {}), bad).score == 0.0


def test_nested_dot_paths():
    cmp = resolve_comparator({"keys": {"address.city": "normalized", "address.note": "ignore"}})
    exp = ToolCall("ship", {"address": {"city": "Paris", "zip": "75001", "note": "x"}, "n": 1})
    act = ToolCall("ship", {"n": 1, "address": {"zip": "75001", "city": " paris ", "note": "y"}})
    out = cmp.compare(exp, act)
    assert out.score == 1.0
    assert sorted(c.key for c in out.checks) == ["address.city", "address.zip", "n"]
    wrong = cmp.compare(exp, ToolCall("ship", {"n": 1, "address": {"zip": "1", "city": "paris"}}))
    assert wrong.score == pytest.approx(0.75)  # n = 1, address = mean(city 1, zip 0)
    not_a_dict = cmp.compare(exp, ToolCall("ship", {"n": 1, "address": "Paris"}))
    assert not_a_dict.score == 0.5


def test_nested_dicts_compare_regardless_of_key_order_by_default():
    cmp = ArgumentComparator()
    exp = ToolCall("f", {"filter": {"a": 1, "b": [1, {"c": 2, "d": 3}]}})
    act = ToolCall("f", {"filter": {"b": [1, {"d": 3, "c": 2}], "a": 1}})
    assert cmp.compare(exp, act).score == 1.0


def test_keys_restriction_with_dot_paths():
    cmp = ArgumentComparator()
    exp = ToolCall("f", {"address": {"city": "Paris", "zip": "1"}, "ts": 5})
    act = ToolCall("f", {"address": {"city": "Paris", "zip": "2"}, "ts": 6})
    out = cmp.compare(exp, act, keys=["address.city"])
    assert out.score == 1.0 and [c.key for c in out.checks] == ["address.city"]
    assert cmp.compare(exp, act, keys=["ts"]).score == 0.0


def test_similarity_pass_score_decides_match():
    cmp = resolve_comparator({"similarity": {"min_score": 0.5}})
    out = cmp.compare(ToolCall("f", {"q": "kitten"}), ToolCall("f", {"q": "sitting"}))
    assert 0.5 < out.score < 1.0 and out.matches
    strict = resolve_comparator("similarity").compare(
        ToolCall("f", {"q": "kitten"}), ToolCall("f", {"q": "sitting"})
    )
    assert not strict.matches
