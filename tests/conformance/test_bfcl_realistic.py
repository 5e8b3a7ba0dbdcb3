"""Prompt-style answers made from BFCL's public data: tooleval agrees with BFCL per id.

Needs ``../shared/data/bfcl`` and ``bfcl-eval`` (skips with a message otherwise).
The numbers are reported in docs/benchmarks/bfcl.md ("BFCL prompt-style answers").
"""

from __future__ import annotations

import math
import random

import pytest
from tests.conformance.bfcl_realistic import fuzzed, realistic_cases
from tests.conformance.bfcl_reference import load_bfcl, ours, theirs

from tooleval.benchmarks.bfcl.decode_handlers import decode_with
from tooleval.benchmarks.bfcl.decode_python import POSITIONAL, BfclDecodeError
from tooleval.benchmarks.bfcl.reader import CATEGORIES

pytestmark = [pytest.mark.shared_data, pytest.mark.slow]


@pytest.fixture(scope="module")
def bfcl():
    loaded = load_bfcl()
    if loaded is None:
        pytest.skip("bfcl_eval is not importable; `pip install --no-deps bfcl-eval==2026.3.23`")
    return loaded


@pytest.fixture(scope="module")
def generated(shared_data):
    """The cases of every category, generated once for the module."""
    return realistic_cases(shared_data / "bfcl")


@pytest.fixture(scope="module")
def agreement(generated, bfcl):
    out = {}
    for category, cases in generated.items():
        rows = []
        for case in cases:
            reference, mine = theirs(bfcl, case), ours(case)
            rows.append((case["name"], case["result"], reference["valid"], mine["valid"]))
        out[category] = rows
    return out


@pytest.mark.parametrize("category", list(CATEGORIES))
def test_agreement_per_category(agreement, category):
    rows = agreement[category]
    assert len(rows) >= 150, f"{category}: too few generated answers ({len(rows)})"
    passed = sum(1 for r in rows if r[2])
    assert 0 < passed < len(rows), f"{category}: BFCL passes {passed} of {len(rows)}"
    differ = [r for r in rows if r[2] != r[3]]
    share = 1 - len(differ) / len(rows)
    assert share >= 0.995, f"{category}: {share:.2%} agreement, e.g. {differ[:3]}"


def test_generation_is_deterministic(shared_data, generated):
    again = realistic_cases(shared_data / "bfcl")  # a second generation, from the same data
    assert {k: [c["result"] for c in v] for k, v in generated.items()} == {
        k: [c["result"] for c in v] for k, v in again.items()
    }


def _same_shape(value):
    """BFCL's decoded value with None keys as ours and "no call" results as one marker."""
    if isinstance(value, dict):
        return {(POSITIONAL if k is None else k): _same_shape(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_same_shape(v) for v in value)
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return value


# BFCL's ast.parse warns on damaged text (bad escapes, "1x")
@pytest.mark.filterwarnings("ignore::SyntaxWarning", "ignore::DeprecationWarning")
def test_decoded_calls_equal_bfcls_on_fuzzed_text(generated, bfcl):
    """Not only the verdicts: the decoded names and values, on randomly damaged answers."""
    rng = random.Random(3)
    formats = {"python": "PYTHON", "java": "JAVA", "javascript": "JAVASCRIPT"}
    checked, differ = 0, []
    for category, cases in generated.items():
        info = CATEGORIES[category]
        language = "python" if info.kind in ("irrelevance", "relevance") else info.language
        for case in rng.sample(cases, min(60, len(cases))):
            for _ in range(3):
                text = fuzzed(case["result"], rng)
                try:
                    reference = bfcl.decode_prompt(
                        text, getattr(bfcl.ReturnFormat, formats[language])
                    )
                    reference = "no call" if reference in ({}, None) else _same_shape(reference)
                except Exception:  # BFCL: any exception is a decoder failure
                    reference = "failed"
                try:
                    mine = decode_with("prompt", text, language)
                    mine = "no call" if mine is None else _same_shape(mine)
                except BfclDecodeError:
                    mine = "failed"
                checked += 1
                if mine != reference:
                    differ.append((category, text, reference, mine))
    assert checked > 2000
    assert not differ, f"{len(differ)} of {checked} differ, e.g. {differ[:3]}"
