"""The CLI's command table: one parser per known command, the full parser otherwise."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tooleval.cli.main import COMMANDS, _parser_for, build_parser, main

ALL = set(build_parser()._subparsers._group_actions[0].choices)  # type: ignore[union-attr]


def _commands(parser) -> set[str]:
    return set(parser._subparsers._group_actions[0].choices)


def test_the_table_is_every_one_word_command_of_the_full_parser():
    assert {c[0] for c in COMMANDS if len(c) == 1} == ALL


@pytest.mark.parametrize("command", [c for c in COMMANDS if len(c) == 1])
def test_a_command_gets_only_its_own_parser(command):
    assert _commands(_parser_for([*command, "--help"])) == set(command)


def test_help_and_typos_get_the_full_parser(capsys):
    assert _commands(_parser_for([])) == ALL
    assert _commands(_parser_for(["--help"])) == ALL
    assert _commands(_parser_for(["scroe"])) == ALL
    with pytest.raises(SystemExit):
        main(["scroe"])
    assert "invalid choice: 'scroe'" in capsys.readouterr().err


def test_monitor_serve_is_its_own_command_with_its_own_usage(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["monitor", "serve", "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: tooleval monitor serve")
    assert "--idle-timeout" in out
    with pytest.raises(SystemExit):
        main(["monitor", "--help"])
    assert "tooleval monitor serve" in " ".join(capsys.readouterr().out.split())


def test_a_bad_option_of_monitor_serve_names_that_command(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["monitor", "serve", "--no-such-option"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.startswith("usage: tooleval monitor serve")


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
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
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
