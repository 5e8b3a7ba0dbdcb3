"""Every example under examples/ is run by some test, so none can rot unseen."""

from __future__ import annotations

import re

import pytest

from ..conftest import REPO_ROOT

EXAMPLES = sorted(p.name for p in (REPO_ROOT / "examples").iterdir() if not p.name.startswith("."))
TESTS = {
    path: path.read_text(encoding="utf-8")
    for path in (REPO_ROOT / "tests").rglob("*.py")
    if path.name != "test_every_example_is_run.py"
}


@pytest.mark.parametrize("example", EXAMPLES)
def test_some_test_runs_the_example(example):
    named = re.compile(
        rf"""examples/{re.escape(example)}\b|["']examples["']\s*/\s*["']{re.escape(example)}["']"""
    )
    users = [path for path, text in TESTS.items() if named.search(text)]
    assert users, f"examples/{example} is not used by any test under tests/"
