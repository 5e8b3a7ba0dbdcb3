"""The CLI builds a one-command parser for a known command and the full parser otherwise."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tooleval.cli.main import _command_modules, _parser_for, build_parser, main

ALL = set(build_parser()._subparsers._group_actions[0].choices)  # type: ignore[union-attr]


def _commands(parser) -> set[str]:
    return set(parser._subparsers._group_actions[0].choices)


@pytest.mark.parametrize("module", _command_modules())
def test_a_command_gets_its_own_module_or_the_full_parser(module):
    parser = _parser_for([module, "--help"])
    commands = _commands(parser)
    assert module in commands if module in ALL else commands == ALL


def test_help_typos_and_other_names_get_the_full_parser(capsys):
    assert _commands(_parser_for([])) == ALL
    assert _commands(_parser_for(["--help"])) == ALL
    assert _commands(_parser_for(["scroe"])) == ALL
    assert _commands(_parser_for(["collect"])) == ALL  # registered by monitor_serve.py
    with pytest.raises(SystemExit):
        main(["scroe"])
    assert "invalid choice: 'scroe'" in capsys.readouterr().err


def test_debug_before_the_command_still_finds_it():
    assert "score" in _commands(_parser_for(["--debug", "score", "x.jsonl"]))


def test_tooleval_score_imports_no_other_command(tmp_path):
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"id": "a", "tools_called": ["f"], "expected_tools": ["f"]}\n')
    code = (
        "import sys; from tooleval.cli.main import main; "
        f"assert main(['score', {str(rows)!r}, '--metric', 'tool_call_accuracy', "
        f"'-o', {str(tmp_path / 'out.jsonl')!r}]) == 0; "
        "print(sorted(m for m in sys.modules if m.startswith('tooleval.cli.')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(eval(done.stdout.strip().splitlines()[-1]))
    assert "tooleval.cli.score" in loaded
    assert not loaded & {"tooleval.cli.bfcl", "tooleval.cli.run", "tooleval.cli.monitor_serve"}


@pytest.mark.parametrize(
    ("argv", "usage"),
    [
        (["score", "rows.jsonl", "--bogus"], "usage: tooleval score "),
        (["metrics", "--bogus", "x"], "usage: tooleval metrics "),
        (["runs", "show", "abc", "--bogus"], "usage: tooleval runs show "),
        (["--debug", "score", "rows.jsonl", "--metrc", "x"], "usage: tooleval score "),
    ],
)
def test_a_bad_option_prints_the_subcommands_usage_line(argv, usage, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(usage), err
    assert "unrecognized arguments: " in err and "usage: tooleval [-h]" not in err


def test_a_bad_option_before_any_command_keeps_the_top_level_usage(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--bogus"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.startswith("usage: tooleval [-h]")
