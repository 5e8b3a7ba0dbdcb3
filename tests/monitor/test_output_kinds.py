"""An output replaces only lines of its own kind: never a dataset, a trace file or other JSON lines.

``check_output_path(..., keys=...)``: an existing non-empty JSONL (or CSV)
file is replaced only when its first line is a line the command writes (a
result line for ``score -o``, a monitor event for ``--emit``, the export's
header for ``runs export --csv``...). Real commands on real files: another
dataset, an OTLP trace file, a CSV dataset, OTLP logs of another program,
links to a dataset; the results of an earlier ``score``, an empty file and
each command's own earlier output are replaced.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.monitor.test_output_paths import COMMANDS, world  # noqa: F401  (the fixture)

from tooleval.cli.main import main

TRACE = {"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": [{"traceId": "ab"}]}]}]}
LOGS = {"resourceLogs": [{"scopeLogs": [{"scope": {"name": "collector"}, "logRecords": []}]}]}
DATASET_ROW = {"id": "x", "input": "refund 7", "tools_called": [], "expected_tools": ["a"]}


@pytest.fixture
def victims(tmp_path: Path) -> dict[str, Path]:
    files = {
        "other dataset": ("other.jsonl", json.dumps(DATASET_ROW) + "\n"),
        "trace": ("trace.jsonl", json.dumps(TRACE) + "\n"),
        "foreign logs": ("logs.jsonl", json.dumps(LOGS) + "\n"),
        "csv dataset": ("cases.csv", "id,input,tools,gold\n1,refund,a,a\n"),
        "array lines": ("arrays.jsonl", "[1, 2]\n"),
    }
    made = {}
    for name, (file, text) in files.items():
        made[name] = tmp_path / "victims" / file
        made[name].parent.mkdir(exist_ok=True)
        made[name].write_text(text)
    made["symlink to a dataset"] = tmp_path / "victims" / "link.jsonl"
    made["symlink to a dataset"].symlink_to(made["other dataset"])
    made["hard link to a dataset"] = tmp_path / "victims" / "hard.jsonl"
    os.link(made["other dataset"], made["hard link to a dataset"])
    return made


# the commands that write JSON lines or CSV; what their refusal calls the victim
LINE_COMMANDS = sorted(
    name
    for name, (_, kind) in COMMANDS.items()
    if kind in ("jsonl", "csv") and "to-case" not in name
)
WORDS = {
    "other dataset": "dataset rows",
    "symlink to a dataset": "dataset rows",
    "hard link to a dataset": "dataset rows",
    "trace": "traces or telemetry",
    "foreign logs": "traces or telemetry",
    "csv dataset": "first line's",
    "array lines": "left alone",
}


@pytest.mark.parametrize("victim", sorted(WORDS))
@pytest.mark.parametrize("command", LINE_COMMANDS)
def test_no_line_output_replaces_lines_of_another_kind(world, victims, capsys, command, victim):  # noqa: F811
    argv, _ = COMMANDS[command]
    target = victims[victim]
    before = {name: path.read_bytes() for name, path in victims.items()}
    assert main(argv(world, str(target))) == 2
    err = capsys.readouterr().err
    _, kind = COMMANDS[command]
    if (kind == "csv") != (victim == "csv dataset"):  # another format: refused by its first byte
        assert "holds JSON" in err or "holds text" in err, err
    else:
        assert WORDS[victim] in err, err
    assert str(target) in err, err
    assert "remove the file first" in err and "Traceback" not in err
    assert {name: path.read_bytes() for name, path in victims.items()} == before
    assert target.is_symlink() == (victim == "symlink to a dataset")


def test_score_replaces_its_own_results_and_an_empty_file(world, tmp_path, capsys):  # noqa: F811
    out = tmp_path / "results.jsonl"
    argv = ["score", str(world["dataset"]), "--metric", "tool_correctness", "-o", str(out)]
    assert main(argv) == 0
    first = out.read_bytes()
    assert main(argv) == 0  # the results of an earlier score: replaced
    assert out.read_bytes() == first
    assert main([*argv, "--fields", "id,score"]) == 0  # lines of some fields only
    assert out.read_bytes().startswith(b'{"id":"r1","score":')
    assert main(argv) == 0  # and those are results too
    assert out.read_bytes() == first
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert main([*argv[:-1], str(empty)]) == 0
    assert empty.read_bytes() == first
    capsys.readouterr()


def test_score_refuses_its_own_input_in_every_format(world, tmp_path, capsys):  # noqa: F811
    csv_data = tmp_path / "cases.csv"
    csv_data.write_text("id,tools_called,expected_tools\n1,a,a\n")
    json_data = tmp_path / "cases.json"
    json_data.write_text(json.dumps([{"id": "1", "tools_called": ["a"], "expected_tools": ["a"]}]))
    for data in (world["dataset"], csv_data, json_data):
        before = data.read_bytes()
        argv = ["score", str(data), "--metric", "tool_correctness", "-o", str(data)]
        assert main(argv) == 2
        assert "also an input file" in capsys.readouterr().err
        assert data.read_bytes() == before


def test_the_python_api_replaces_results_not_datasets(world, victims):  # noqa: F811
    from tooleval import evaluate
    from tooleval.errors import InputError

    result = evaluate(str(world["dataset"]), "tool_correctness")
    for victim in ("other dataset", "trace", "hard link to a dataset"):
        before = victims[victim].read_bytes()
        with pytest.raises(InputError, match="left alone"):
            result.write_jsonl(victims[victim])
        assert victims[victim].read_bytes() == before
    out = victims["other dataset"].parent / "results.jsonl"
    result.write_jsonl(out)
    result.write_jsonl(out)
    assert out.read_bytes() == result.to_jsonl()
