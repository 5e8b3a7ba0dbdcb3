"""Synthetic BFCL cases: tooleval's verdicts equal BFCL's, recorded and (when installed) live.

``bfcl_cases.json`` holds every case of ``bfcl_synthetic.build_cases()``
with the verdict BFCL's own code gave (``valid`` and ``error_type``), so the
suite means something without ``bfcl-eval`` installed. With ``bfcl-eval``
importable, BFCL's decoders and checker run in-process on every case too.
``TOOLEVAL_BFCL_WRITE=1`` rewrites the JSON from BFCL's verdicts.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest
from tests.conformance.bfcl_reference import load_bfcl, ours, theirs
from tests.conformance.bfcl_synthetic import build_cases

RECORDED = Path(__file__).with_name("bfcl_cases.json")
# What the JSON keeps of a case (schemas and answers come from bfcl_synthetic).
_KEPT = ("name", "category", "mode", "names", "result")


@pytest.fixture(scope="module")
def cases():
    return build_cases()


@pytest.fixture(scope="module")
def recorded():
    return json.loads(RECORDED.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def bfcl():
    loaded = load_bfcl()
    if loaded is None:
        pytest.skip(
            "bfcl_eval is not importable; install it with "
            "`pip install --no-deps bfcl-eval==2026.3.23` (make test does) to check against BFCL live"
        )
    return loaded


def test_recorded_cases_are_the_generated_ones(cases, recorded):
    assert [c["name"] for c in recorded] == [c["name"] for c in cases]
    for case, kept in zip(cases, recorded, strict=True):
        assert {k: case[k] for k in _KEPT} == {k: kept[k] for k in _KEPT}, case["name"]


def test_cases_cover_both_outcomes_and_every_category_kind(recorded):
    outcomes = Counter(c["expected"]["valid"] for c in recorded)
    assert outcomes[True] >= 100 and outcomes[False] >= 300
    labels = {c["expected"]["error_type"] for c in recorded} - {None}
    for label in (
        "ast_decoder:decoder_failed",
        "ast_decoder:decoder_wrong_output_format",
        "simple_function_checker:wrong_func_name",
        "simple_function_checker:missing_required",
        "simple_function_checker:unexpected_param",
        "simple_function_checker:missing_optional",
        "simple_function_checker:wrong_count",
        "multiple_function_checker:wrong_count",
        "parallel_function_checker_no_order:wrong_count",
        "parallel_function_checker_no_order:cannot_find_match",
        "type_error:simple",
        "type_error:nested",
        "type_error:java",
        "type_error:js",
        "value_error:string",
        "value_error:list/tuple",
        "value_error:dict_key",
        "value_error:dict_value",
        "value_error:list_dict_count",
        "value_error:others",
        "irrelevance_error:decoder_success",
        "relevance_error:decoder_failed",
    ):
        assert label in labels, label


def test_tooleval_gives_the_recorded_verdicts(cases, recorded):
    expected = {c["name"]: c["expected"] for c in recorded}
    wrong = [
        (c["name"], c["result"], expected[c["name"]], ours(c))
        for c in cases
        if ours(c) != expected[c["name"]]
    ]
    assert not wrong, f"{len(wrong)} of {len(recorded)} differ, e.g. {wrong[:3]}"


def test_bfcl_gives_the_recorded_verdicts(bfcl, cases, recorded):
    live = [{**{k: case[k] for k in _KEPT}, "expected": theirs(bfcl, case)} for case in cases]
    if os.environ.get("TOOLEVAL_BFCL_WRITE"):
        lines = ",\n".join(json.dumps(c, ensure_ascii=False) for c in live)
        RECORDED.write_text(f"[\n{lines}\n]\n", encoding="utf-8")
    changed = [
        c["name"]
        for c, kept in zip(live, recorded, strict=True)
        if c["expected"] != kept["expected"]
    ]
    assert not changed, (
        f"BFCL's verdicts changed for {changed[:5]}; regenerate with TOOLEVAL_BFCL_WRITE=1"
    )
