"""The shared reason writer."""

from __future__ import annotations

from tooleval.metrics.reasons import explain, short
from tooleval.model import ArgumentCheck, Diagnosis


def test_each_kind_of_problem_is_named():
    d = Diagnosis(
        missing=[{"name": "a"}],
        extra=[{"name": "b"}, {"name": "c"}],
        order_violations=["x (expected #2) came before y (expected #1)"],
        arguments=[
            ArgumentCheck("t", "k", 1, 2, 0.0),
            ArgumentCheck("t", "m", "v", None, 0.0, missing=True),
            ArgumentCheck("t", "z", None, 5, 0.0, matcher="unexpected_key"),
            ArgumentCheck("t", "ok", 1, 1, 1.0),
        ],
        details={"parse_errors": [{"name": "t", "index": 0, "error": "bad"}]},
    )
    assert explain(d, "S") == (
        "S; missing a; extra b, c; x (expected #2) came before y (expected #1); "
        "t.k expected 1, got 2; t.m missing (expected 'v'); t.z not expected, got 5; "
        "arguments of t (call #1) could not be parsed"
    )


def test_long_lists_are_cut():
    d = Diagnosis(missing=[{"name": str(i)} for i in range(5)])
    assert explain(d, "S") == "S; missing 0, 1, 2 and 2 more"
    assert short("a" * 100).endswith("...") and len(short("a" * 100)) == 40


def test_partial_similarity_is_labelled():
    d = Diagnosis(
        arguments=[ArgumentCheck("s", "q", "kitten", "sitting", 0.57, matcher="similarity")]
    )
    assert explain(d, "S") == "S; s.q expected 'kitten', got 'sitting' (similarity 0.57)"
