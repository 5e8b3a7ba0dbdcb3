"""How much of a third-party reference the conformance tests run: a sample, or everything.

The references (tau-bench's ``calculate_reward``, ...) are slow, so the default suite
checks a deterministic sample whose composition each test asserts, and
``TOOLEVAL_CONFORMANCE=full`` (``make conformance``) adds the checks on every run.
Any other value is a collection error, so a typo never quietly runs the sample only.

>>> full_only.name
'skipif'
"""

from __future__ import annotations

import os

import pytest

VARIABLE = "TOOLEVAL_CONFORMANCE"
_VALUE = os.environ.get(VARIABLE, "").strip().lower()
if _VALUE not in ("", "full"):
    raise ValueError(f"{VARIABLE}={os.environ[VARIABLE]!r}: expected 'full' or unset")

FULL = _VALUE == "full"
full_only = pytest.mark.skipif(
    not FULL,
    reason=(
        f"the full reference check runs with {VARIABLE}=full (make conformance); "
        "the default suite checks a stratified sample"
    ),
)
