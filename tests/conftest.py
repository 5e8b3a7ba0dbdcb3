"""Fixtures shared by every test area."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The public third-party data in ``../shared/data`` (skips when absent)."""
    if not SHARED_DATA.is_dir():
        pytest.skip(
            f"third-party data not found at {SHARED_DATA}; these conformance tests need ../shared/data"
        )
    return SHARED_DATA


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT
