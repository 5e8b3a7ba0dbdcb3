"""The installed package against the source tree: resource files, version, entry points.

Run by ``make test`` inside each fresh venv that installed a built wheel or the
sdist (``tests/installed/check.py`` copies this file there and points
``TOOLEVAL_SOURCE_TREE`` at the checkout); in the dev venv, whose tooleval is the
editable source tree itself, the file comparison has nothing to compare and skips.
Nothing here builds anything.
"""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import tooleval

INSTALLED = Path(tooleval.__file__).resolve().parent
SOURCE = Path(os.environ.get("TOOLEVAL_SOURCE_TREE") or Path(__file__).resolve().parents[2])
# What the wheel carries besides Python modules (pyproject.toml [tool.setuptools.package-data]
# for the pure-Python wheel; maturin ships every file under src/tooleval)
RESOURCE_SUFFIXES = {".html", ".css", ".js", ".sql", ".json", ".ini", ".mako", ".typed"}


def _resources(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in root.rglob("*")
        if path.is_file()
        and (path.suffix in RESOURCE_SUFFIXES or path.suffix == ".py")
        and "__pycache__" not in path.parts
    }


def _project() -> dict[str, object]:
    with (SOURCE / "pyproject.toml").open("rb") as handle:
        return dict(tomllib.load(handle)["project"])


@pytest.mark.skipif(
    INSTALLED.is_relative_to(SOURCE / "src"), reason="tooleval is the source tree (editable)"
)
def test_installed_files_equal_the_source_tree() -> None:
    source = _resources(SOURCE / "src" / "tooleval")
    installed = _resources(INSTALLED)
    assert sorted(set(source) - set(installed)) == [], "files missing from the install"
    assert sorted(set(installed) - set(source)) == [], "files the source tree does not have"
    changed = sorted(name for name in source if source[name] != installed[name])
    assert changed == [], "installed files that differ from the source tree"
    kinds = {Path(name).suffix for name in installed}
    assert {".css", ".js", ".typed"} <= kinds, "the viewer's assets and py.typed ship"


def test_one_version_everywhere() -> None:
    version = str(_project()["version"])
    assert importlib.metadata.version("tooleval") == version
    assert tooleval.__version__ == version
    for command in (["tooleval"], [sys.executable, "-m", "tooleval"]):
        if command == ["tooleval"]:
            command = [str(Path(sys.executable).with_name("tooleval"))]
        shown = subprocess.run(
            [*command, "--version"], capture_output=True, text=True, check=True, timeout=120
        ).stdout
        assert shown.startswith(f"tooleval {version} (kernel: "), shown


def test_version_names_the_kernel_state() -> None:
    env = {**os.environ, "TOOLEVAL_NO_KERNEL": "1"}
    shown = subprocess.run(
        [sys.executable, "-m", "tooleval", "--version"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=120,
    ).stdout
    assert "kernel: disabled by TOOLEVAL_NO_KERNEL" in shown
    expected = os.environ.get("TOOLEVAL_EXPECT_KERNEL")  # set by check.py: compiled / absent
    if expected:
        env = {k: v for k, v in os.environ.items() if k != "TOOLEVAL_NO_KERNEL"}
        shown = subprocess.run(
            [sys.executable, "-m", "tooleval", "--version"],
            capture_output=True,
            text=True,
            check=True,
            env=env,
            timeout=120,
        ).stdout
        assert f"(kernel: {expected}" in shown, shown


def test_metadata_is_complete() -> None:
    meta = importlib.metadata.metadata("tooleval")
    project = _project()
    assert meta["Name"] == "tooleval"
    assert meta["Requires-Python"] == project["requires-python"]
    assert meta["Summary"] == project["description"]
    assert "Programming Language :: Python :: 3.11" in meta.get_all("Classifier", [])
    assert set(meta.get_all("Project-URL", [])) == {
        f"{name}, {url}"
        for name, url in dict(project["urls"]).items()  # type: ignore[call-overload]
    }
    assert meta["Description-Content-Type"].startswith("text/markdown")
    assert "tooleval" in (meta.get_payload() or meta["Description"] or "")  # type: ignore[attr-defined]
    files = [str(f) for f in importlib.metadata.files("tooleval") or []]
    assert any(f.endswith("LICENSE") for f in files), "the licence file ships in the wheel"
    assert {ep.name for ep in importlib.metadata.entry_points(group="console_scripts")} >= {
        "tooleval"
    }
