"""Prompt-style answers made from BFCL's public data: tooleval agrees with BFCL per id.

Needs ``../shared/data/bfcl`` and ``bfcl-eval`` (skips with a message otherwise).
The numbers are reported in docs/conformance.md ("BFCL prompt-style answers").
"""

from __future__ import annotations

import pytest
from tests.conformance.bfcl_realistic import realistic_cases
from tests.conformance.bfcl_reference import load_bfcl, ours, theirs

from tooleval.formats.bfcl import CATEGORIES

pytestmark = [pytest.mark.shared_data, pytest.mark.slow]


@pytest.fixture(scope="module")
def agreement(shared_data):
    bfcl = load_bfcl()
    if bfcl is None:
        pytest.skip("bfcl_eval is not importable; `pip install --no-deps bfcl-eval==2026.3.23`")
    out = {}
    for category, cases in realistic_cases(shared_data / "bfcl").items():
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


def test_generation_is_deterministic(shared_data):
    first = realistic_cases(shared_data / "bfcl")
    again = realistic_cases(shared_data / "bfcl")
    assert {k: [c["result"] for c in v] for k, v in first.items()} == {
        k: [c["result"] for c in v] for k, v in again.items()
    }
