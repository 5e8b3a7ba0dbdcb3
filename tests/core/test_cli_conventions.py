"""The conventions of the CLIs people know (git, ruff, pytest): did-you-mean, -V."""

from __future__ import annotations

import subprocess
import sys

import pytest


def tooleval(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tooleval", *args], capture_output=True, text=True, timeout=120
    )


def test_a_mistyped_command_gets_the_nearest_one_named():
    done = tooleval("scroe", "x.jsonl")
    assert done.returncode == 2
    assert "invalid choice: 'scroe' (did you mean 'score'?)" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_mistyped_verb_gets_the_nearest_one_named():
    done = tooleval("runs", "lst")
    assert done.returncode == 2
    assert "did you mean 'list'?" in done.stderr


@pytest.mark.parametrize(
    "argv,typo,meant",
    [
        (["score", "x.jsonl", "--metrc", "tool_correctness"], "--metrc", "--metric"),
        (["run", "plan.yaml", "--dry-rn"], "--dry-rn", "--dry-run"),
        (["compare", "a", "b", "--fial-on-regression"], "--fial-on-regression", "--fail-on"),
        (["runs", "list", "--stroe=x.db"], "--stroe", "--store"),
        (["dataset", "check", "x.jsonl", "--bnd", "a=b"], "--bnd", "--bind"),
    ],
)
def test_a_mistyped_option_gets_the_nearest_option_of_its_command(argv, typo, meant):
    done = tooleval(*argv)
    assert done.returncode == 2, done.stderr
    assert "unrecognized arguments: " + typo in done.stderr
    assert f"did you mean '{meant}" in done.stderr
    assert f"usage: tooleval {argv[0]}" in done.stderr  # the usage line of the command


def test_an_option_with_no_near_neighbour_is_only_unrecognized():
    done = tooleval("score", "x.jsonl", "--zzzzzzzzzz")
    assert done.returncode == 2
    assert "unrecognized arguments: --zzzzzzzzzz" in done.stderr
    assert "did you mean" not in done.stderr


def test_dash_capital_v_prints_the_version_like_version():
    short, long = tooleval("-V"), tooleval("--version")
    assert short.returncode == long.returncode == 0
    assert short.stdout == long.stdout
    assert short.stdout.startswith("tooleval ") and "kernel:" in short.stdout
