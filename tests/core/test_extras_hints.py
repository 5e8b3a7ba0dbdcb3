"""Every missing-extra message names an install that works where tooleval came from."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from importlib import metadata

import pytest

from tooleval._extras import (
    TEST_ONLY_EXTRAS,
    install_hint,
    origin,
    requirements,
    user_extras,
)

from ..conftest import REPO_ROOT

PYPROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
DECLARED = PYPROJECT["project"]["optional-dependencies"]
# the requirement strings a built wheel's METADATA carries for these extras
REQUIRES = tuple(f"{req} ; extra == '{extra}'" for extra, reqs in DECLARED.items() for req in reqs)


def _dist(tmp_path, direct_url: dict | None) -> metadata.Distribution:
    info = tmp_path / "tooleval-0.1.0.dist-info"
    info.mkdir()
    lines = ["Metadata-Version: 2.4", "Name: tooleval", "Version: 0.1.0"]
    lines += [f"Requires-Dist: {r}" for r in REQUIRES]
    (info / "METADATA").write_text("\n".join(lines) + "\n")
    if direct_url is not None:
        (info / "direct_url.json").write_text(json.dumps(direct_url))
    return metadata.PathDistribution(info)


def _expand(extra: str) -> set[str]:
    out: set[str] = set()
    for req in DECLARED[extra]:
        if req.startswith("tooleval["):
            for inner in req[len("tooleval[") : -1].split(","):
                out |= _expand(inner)
        else:
            out.add(req.replace(" ", ""))
    return out


@pytest.mark.parametrize("extra", sorted(set(DECLARED) - TEST_ONLY_EXTRAS))
def test_an_extras_requirements_are_its_own_and_those_of_the_extras_it_names(extra):
    assert set(requirements([extra], REQUIRES)) == _expand(extra)


def test_every_user_extra_and_no_test_only_one_is_offered():
    assert set(user_extras(REQUIRES)) == set(DECLARED) - TEST_ONLY_EXTRAS
    assert "pytest>=8" not in requirements(user_extras(REQUIRES), REQUIRES)


def test_installed_from_an_index_names_the_extra_on_the_index(tmp_path):
    where = origin(_dist(tmp_path, None))
    assert where.kind == "index"
    assert install_hint("runs", where) == "pip install 'tooleval[runs]'"


def test_installed_from_a_wheel_file_names_that_file_with_the_extra(tmp_path):
    wheel = tmp_path / "tooleval-0.1.0-cp311-abi3-manylinux2014_x86_64.whl"
    wheel.write_bytes(b"PK")
    where = origin(_dist(tmp_path, {"url": wheel.as_uri(), "archive_info": {}}))
    assert where.kind == "wheel"
    assert install_hint("web", where) == f"pip install '{wheel}[web]'"


def test_a_wheel_file_that_is_gone_falls_back_to_the_requirements(tmp_path):
    gone = tmp_path / "elsewhere" / "tooleval-0.1.0-cp311-abi3-any.whl"
    where = origin(_dist(tmp_path, {"url": gone.as_uri(), "archive_info": {}}))
    hint = install_hint("judge", where)
    assert hint == "pip install 'openai>=1.40'"


@pytest.mark.parametrize("url", ["file:///nowhere/tooleval-0.1.0.tar.gz", "file:///nowhere/src"])
def test_a_source_install_names_the_requirements_never_a_rebuild(tmp_path, url):
    where = origin(_dist(tmp_path, {"url": url, "dir_info": {}}))
    assert where.kind == "folder"
    hint = install_hint("web", where)
    # web names runs: both extras' requirements, by name, so nothing of tooleval is rebuilt
    assert "'fastapi>=0.110'" in hint and "'sqlalchemy>=2.0'" in hint
    assert "tooleval" not in hint


def test_this_checkout_names_make_extras():
    assert origin().kind == "checkout"
    hint = install_hint("runs")
    assert hint.startswith("make extras") and str(REPO_ROOT) in hint


_BLOCKED = (
    "import sys; sys.modules['sqlalchemy'] = None; "
    "from tooleval.cli.main import main; sys.exit(main(sys.argv[1:]))"
)


def test_a_command_missing_its_extra_in_a_checkout_says_make_extras(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", _BLOCKED, "runs", "list", "--store", str(tmp_path / "r.db")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "needs the tooleval[runs] extra (sqlalchemy is not installed): make extras" in (
        done.stderr
    )
    assert "pip install 'tooleval[" not in done.stderr


def test_make_extras_installs_requirements_and_never_the_project_again():
    done = subprocess.run(
        ["make", "-n", "-W", "pyproject.toml", "extras"],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    extras_line = next(line for line in done.stdout.splitlines() if "tooleval._extras" in line)
    assert "-r build/extras-requirements.txt" in extras_line
    assert " -e " not in extras_line and "maturin" not in extras_line


def test_the_requirements_module_prints_every_user_extras_requirements():
    done = subprocess.run(
        [sys.executable, "-m", "tooleval._extras"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    printed = set(done.stdout.split())
    assert printed == {r for e in set(DECLARED) - TEST_ONLY_EXTRAS for r in _expand(e)}
