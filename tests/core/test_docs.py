"""Docs cannot drift: every command, option and metric is documented."""

from __future__ import annotations

import argparse
import re

import pytest

from tooleval.cli.main import build_parser
from tooleval.metrics.registry import list_metrics

from ..conftest import REPO_ROOT


def docs_text() -> str:
    parts = [(REPO_ROOT / "README.md").read_text()]
    parts += [p.read_text() for p in sorted((REPO_ROOT / "docs").rglob("*.md"))]
    return "\n".join(parts)


def walk_commands(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*prefix, name), sub
                yield from walk_commands(sub, (*prefix, name))


COMMANDS = list(walk_commands(build_parser()))


def test_readme_opens_with_the_two_commands():
    head = (REPO_ROOT / "README.md").read_text().split("\n## ", 2)[1]
    assert "make demo" in head and "make test" in head


@pytest.mark.parametrize("path,parser", COMMANDS, ids=[" ".join(p) for p, _ in COMMANDS])
def test_every_command_and_option_is_documented(path, parser):
    text = docs_text()
    command = "tooleval " + " ".join(path)
    assert command in text, f"`{command}` is not mentioned in README.md or docs/"
    for action in parser._actions:
        for option in action.option_strings:
            if option.startswith("--") and option != "--help":
                assert re.search(re.escape(option) + r"\b", text), (
                    f"option {option} of `{command}` is not documented"
                )


@pytest.mark.parametrize("info", list_metrics(), ids=lambda i: i.name)
def test_every_metric_and_parameter_is_documented(info):
    text = docs_text()
    assert f"`{info.name}`" in text or info.name in text, f"metric {info.name} is undocumented"
    for param in info.params:
        assert param in text, f"parameter {param} of {info.name} is undocumented"


def test_readme_quick_example_runs_as_printed(capsys):
    readme = (REPO_ROOT / "README.md").read_text()
    block = re.search(r"```python\n(from tooleval import ToolCall.*?)```", readme, re.S).group(1)
    exec(compile(block, "README.md", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "0.5 False"  # the wrong order cancelled: a reader says it failed
    assert "cancel_order.order_id expected '4471', got '4417'" in out[1]
