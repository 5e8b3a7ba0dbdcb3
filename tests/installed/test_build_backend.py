"""build_backend/tooleval_build.py: which backend builds the wheel, and what it asks pip for.

The builds themselves are checked by ``make test`` (tests/installed/check.py installs the
wheel, the sdist with cargo and the sdist without it); these pin the choice.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from types import ModuleType

import pytest

SOURCE = Path(os.environ.get("TOOLEVAL_SOURCE_TREE") or Path(__file__).resolve().parents[2])


def _backend() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "tooleval_build", SOURCE / "build_backend" / "tooleval_build.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_without_cargo_the_wheel_is_pure_python(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("CARGO", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no cargo here
    backend = _backend()
    assert backend.get_requires_for_build_wheel() == ["setuptools>=77"]
    assert backend.get_requires_for_build_editable() == ["setuptools>=77"]
    assert backend.get_requires_for_build_sdist() == ["maturin>=1.9,<2"]  # an sdist needs cargo


def test_pure_python_on_request_even_with_cargo(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    cargo = tmp_path / "cargo"
    cargo.write_text("#!/bin/sh\n")
    cargo.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    backend = _backend()
    monkeypatch.delenv("MATURIN_PEP517_ARGS", raising=False)
    assert backend.get_requires_for_build_wheel() == ["maturin>=1.9,<2"]
    monkeypatch.setenv("MATURIN_PEP517_ARGS", "--zig --compatibility manylinux2014")
    assert backend.get_requires_for_build_wheel() == ["maturin>=1.9,<2", "ziglang"]
    monkeypatch.setenv("TOOLEVAL_PURE_PYTHON", "1")
    assert backend.get_requires_for_build_wheel() == ["setuptools>=77"]


def test_the_pure_python_notice_names_a_remedy(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("setuptools", reason="setuptools builds the pure-Python wheel")
    monkeypatch.setenv("TOOLEVAL_PURE_PYTHON", "1")
    backend = _backend()
    assert backend._backend().__name__ == "setuptools.build_meta"
    notice = capsys.readouterr().err
    assert "pure-Python" in notice and "https://rustup.rs" in notice
