"""``tooleval.plugins.entry_points`` lists what ``importlib.metadata`` lists, in the same order."""

from __future__ import annotations

import importlib.metadata
import sys
import zipfile
from pathlib import Path

import pytest

from tooleval import plugins


def _metadata(group: str) -> list[tuple[str, str, str]]:
    return [(p.name, p.value, p.group) for p in importlib.metadata.entry_points(group=group)]


def _ours(group: str) -> list[tuple[str, str, str]]:
    return [(p.name, p.value, p.group) for p in plugins.entry_points(group)]


def _dist(root: Path, folder: str, text: str) -> None:
    info = root / folder
    info.mkdir()
    name = folder.partition("-")[0]
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(text)


GROUPS = ["tooleval.benchmarks", "tooleval.metrics", "console_scripts", "pytest11", "no.such"]


@pytest.mark.parametrize("group", GROUPS)
def test_the_installed_environment_gives_the_same_list(group: str) -> None:
    assert _ours(group) == _metadata(group)


def test_scan_reads_the_installed_environment_itself() -> None:
    # the fast path, not the fallback, answers for this venv (its start-up is what it saves)
    assert [(p.name, p.value) for p in plugins._scan("tooleval.benchmarks")] == [
        (n, v) for n, v, _ in _metadata("tooleval.benchmarks")
    ]


def test_first_distribution_of_a_name_wins_and_the_text_rules_hold(tmp_path, monkeypatch):
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    text = "# a comment\n[other]\nx = m:x\n\n[tooleval.test_group]\n  one = pkg.mod:obj.attr [extra]\ntwo=pkg\n"
    _dist(first, "Toy_Plugin-1.0.dist-info", text)
    _dist(second, "toy.plugin-2.0.dist-info", "[tooleval.test_group]\nshadowed = pkg:x\n")
    _dist(second, "other_plugin-1.0.egg-info", "[tooleval.test_group]\nthree = pkg:y\n")
    (second / "lonely-1.0.dist-info").mkdir()  # no entry_points.txt
    monkeypatch.syspath_prepend(str(second))
    monkeypatch.syspath_prepend(str(first))
    importlib.invalidate_caches()
    found = _ours("tooleval.test_group")
    assert found == _metadata("tooleval.test_group")
    assert [n for n, _, _ in found] == ["one", "two", "three"]
    assert found[0][1] == "pkg.mod:obj.attr [extra]"


def test_a_zip_on_the_path_is_read_by_importlib_metadata(tmp_path, monkeypatch):
    archive = tmp_path / "plugins.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("zipped-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: zipped\n")
        z.writestr("zipped-1.0.dist-info/entry_points.txt", "[tooleval.test_group]\nz = zm:z\n")
    monkeypatch.syspath_prepend(str(archive))
    importlib.invalidate_caches()
    assert plugins._scan("tooleval.test_group") is None  # importlib.metadata reads zips
    assert (
        _ours("tooleval.test_group")
        == _metadata("tooleval.test_group")
        == [("z", "zm:z", "tooleval.test_group")]
    )


def test_load_gives_the_named_object_or_the_module() -> None:
    point = plugins.EntryPoint("p", "tooleval.plugins:EntryPoint.load", "g")
    assert point.load() is plugins.EntryPoint.load
    assert (
        plugins.EntryPoint("m", "tooleval.plugins", "g").load() is sys.modules["tooleval.plugins"]
    )
    with pytest.raises(ValueError, match="malformed"):
        plugins.EntryPoint("bad", "not a value!", "g").load()
