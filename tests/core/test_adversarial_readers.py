"""Every reader of user files names the file/row for JSON nested past any limit.

Depth 100,000 is past Python's recursion limit: a reader that used ``json.loads``
raised ``RecursionError`` far from the file, and the CLI could only say "input
nested too deeply" without naming the file. Each reader now parses through
``tooleval.formats.json_limits`` and the error names where the JSON is.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tooleval.cli.main import main

DEPTH = 100_000
DEEP = "[" * DEPTH + "]" * DEPTH


def _one_line(capsys) -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def _plan(folder: Path, dataset: str) -> Path:
    plan = folder / "plan.yaml"
    plan.write_text(
        yaml.safe_dump(
            {
                "dataset": dataset,
                "connector": {
                    "url": "http://127.0.0.1:9/agent",
                    "response": {"tools_called": "$.calls[*].name"},
                },
                "metrics": ["tool_correctness"],
            }
        )
    )
    return plan


def _deep_files(folder: Path) -> dict[str, Path]:
    row = '{"id": "a", "input": "x", "expected_tools": ' + DEEP + "}"
    files = {
        "jsonl": folder / "d.jsonl",
        "json": folder / "d.json",
        "csv": folder / "d.csv",
    }
    files["jsonl"].write_text(row + "\n")
    files["json"].write_text("[" + row + "]")
    half = "[" * 50_000 + "]" * 50_000  # under the csv module's field size limit
    files["csv"].write_text(f'id,input,expected_tools\na,x,"{half}"\n')
    return files


@pytest.mark.parametrize("kind", ["jsonl", "json", "csv"])
def test_dataset_check_names_the_file_or_row(tmp_path, capsys, kind):
    path = _deep_files(tmp_path)[kind]
    assert main(["dataset", "check", str(path)]) == 2
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert "Traceback" not in text
    assert "nested deeper than 100 levels" in text
    assert "row 1" in text or path.name in text


@pytest.mark.parametrize("kind", ["jsonl", "json"])
def test_run_names_the_file_when_no_row_can_be_read(tmp_path, capsys, kind):
    path = _deep_files(tmp_path)[kind]
    plan = _plan(tmp_path, path.name)
    for extra in (["--dry-run"], []):
        assert main(["run", str(plan), "--store", str(tmp_path / "s.db"), *extra]) == 2
        line = _one_line(capsys)
        assert path.name in line and "nested deeper than 100 levels" in line


def test_run_keeps_a_deep_csv_cell_as_a_named_error_row(tmp_path, capsys):
    path = _deep_files(tmp_path)["csv"]
    assert main(["run", str(_plan(tmp_path, path.name)), "--dry-run"]) == 0
    assert "rows cannot be read (row 1)" in capsys.readouterr().out


def test_one_deep_jsonl_line_is_an_error_row_among_good_ones(tmp_path):
    from tooleval.datasets import load_dataset

    path = tmp_path / "d.jsonl"
    good = {"id": "ok", "input": "x", "expected_tools": ["f"]}
    path.write_text(json.dumps(good) + "\n" + '{"id": "deep", "x": ' + DEEP + "}\n")
    dataset = load_dataset(path)
    assert [r.error is None for r in dataset.rows] == [True, False]
    assert "row 2" in dataset.rows[1].error and "nested deeper" in dataset.rows[1].error


@pytest.mark.parametrize(
    ("fmt", "name", "text"),
    [
        ("tau2", "t.json", '{"simulations": ' + DEEP + "}"),
        ("tau-bench", "t.json", "[" + DEEP + "]"),
        ("api-bank", "a.jsonl", '{"api_name": ' + DEEP + "}\n"),
    ],
)
def test_benchmark_importers_name_the_file(tmp_path, capsys, fmt, name, text):
    path = tmp_path / name
    path.write_text(text)
    assert main(["score", str(path), "--format", fmt]) == 2
    line = _one_line(capsys)
    assert name in line and "nested deeper than 100 levels" in line


@pytest.mark.parametrize("where", ["top", "arguments"])
def test_score_with_detection_names_the_row(tmp_path, capsys, where):
    path = tmp_path / "d.jsonl"
    if where == "top":
        path.write_text('{"id": "a", "tools_called": ' + DEEP + ', "expected_tools": ["f"]}\n')
    else:  # arguments as a JSON string: the call keeps a parse error, the row is scored
        call = {"name": "f", "arguments": '{"x": ' + DEEP + "}"}
        path.write_text(json.dumps({"id": "a", "tools_called": [call], "expected_tools": ["f"]}))
    out = tmp_path / "out.jsonl"
    code = main(["score", str(path), "--metric", "tool_correctness", "-o", str(out)])
    if where == "top":
        assert code == 2
        line = _one_line(capsys)
        assert "row 1" in line and "nested deeper" in line
    else:
        assert code == 0
        assert len(out.read_text().splitlines()) == 1


def test_loads_text_keeps_the_standard_dialect_and_names_the_place():
    from tooleval.formats.json_limits import NestingTooDeep, loads_text

    assert loads_text('{"x": NaN}')["x"] != 0
    with pytest.raises(NestingTooDeep, match="file f.jsonl, row 3"):
        loads_text(DEEP, file="f.jsonl", row=3)
    with pytest.raises(NestingTooDeep):
        loads_text("[" * 150 + "]" * 150)
    assert loads_text("[" * 100 + "]" * 100) is not None
    with pytest.raises(ValueError):
        loads_text("{broken")


# ------------------------------------------------- a CSV with another delimiter


@pytest.mark.parametrize(("sep", "name"), [(";", "semicolons"), ("|", "bars")])
@pytest.mark.parametrize("command", ["dataset", "run", "score"])
def test_a_one_column_csv_header_holding_separators_is_refused_by_every_command(
    tmp_path, capsys, sep, name, command
):
    path = tmp_path / "d.csv"
    path.write_text(sep.join(["id", "input", "expected_tools"]) + "\n" + sep.join("1ab") + "\n")
    argv = {
        "dataset": ["dataset", "check", str(path)],
        "run": ["run", str(_plan(tmp_path, "d.csv")), "--dry-run"],
        "score": ["score", str(path), "--metric", "tool_correctness"],
    }[command]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" or command == "score"
    line = _one_line_of(captured.err)
    assert f"separated by {name}" in line and "d.csv" in line
    assert "--bind" not in line


def _one_line_of(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_a_suggested_bind_is_quoted_for_the_shell(tmp_path, capsys):
    path = tmp_path / "d.csv"
    path.write_text("id,my question,expected_tools\n1,hi,search\n")
    assert main(["dataset", "check", str(path)]) == 2
    assert "(--bind 'input=my question')" in capsys.readouterr().out


# ------------------------------------------ monitor: nothing read, nothing stored


@pytest.mark.parametrize(
    "content",
    [b"", b"\n \n", bytes(range(256)) * 4, b"{broken\n", b'[{"id": 1}]', DEEP.encode()],
    ids=["empty", "blank", "binary", "bad_line", "json_array", "deep"],
)
def test_monitor_on_unreadable_input_stores_no_run_and_writes_no_events(tmp_path, capsys, content):
    traces = tmp_path / "t.jsonl"
    traces.write_bytes(content)
    store = tmp_path / "s.db"
    events = tmp_path / "events.json"
    code = main(["monitor", str(traces), "--store", str(store), "--emit", str(events)])
    assert code == 2
    assert str(traces) in _one_line(capsys)
    assert not events.exists()
    if store.exists():
        from tooleval.store import open_store

        with open_store(str(store)) as opened:
            assert list(opened.list_runs()) == []


def test_monitor_on_good_input_still_stores_its_run(tmp_path, capsys):
    traces = tmp_path / "t.jsonl"
    messages = [{"role": "user", "content": "x"}]
    traces.write_text(json.dumps({"messages": messages}) + "\n")
    store = tmp_path / "s.db"
    assert main(["monitor", str(traces), "--store", str(store)]) == 0
    assert "stored as run" in capsys.readouterr().out


# ------------------------------------------------------------------- bfcl files

BFCL_FILE = "BFCL_v4_simple_python_result.json"
GOOD_BFCL = '{"id": "simple_python_0", "result": "[calculate_triangle_area(base=10, height=5)]"}\n'


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", "has no rows"),
        (b"\n\n", "has no rows"),
        (bytes(range(128, 256)) * 8, "not UTF-8"),
        (b'{"id": ["simple_python_0"], "result": "[f(a=1)]"}\n', "has no question"),
        (b'{"id": "simple_python_0", "res', "invalid JSON"),
        (b'{"id": "simple_python_0", "result": ' + DEEP.encode() + b"}\n", "nested deeper"),
    ],
    ids=["empty", "blank", "binary", "list_id", "truncated", "deep"],
)
def test_bfcl_unreadable_result_files_are_exit_2_naming_the_file(
    shared_data, tmp_path, capsys, content, expected
):
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / BFCL_FILE).write_bytes(content)
    assert main(["bfcl", str(folder), "--data", str(shared_data / "bfcl")]) == 2
    line = _one_line(capsys)
    assert expected in line and BFCL_FILE in line


def test_bfcl_two_result_files_of_one_category_are_refused_not_one_dropped(
    shared_data, tmp_path, capsys
):
    for model in ("a", "b"):
        (tmp_path / model).mkdir()
        (tmp_path / model / BFCL_FILE).write_text(GOOD_BFCL)
    assert main(["bfcl", str(tmp_path), "--data", str(shared_data / "bfcl")]) == 2
    assert "two result files for simple_python" in _one_line(capsys)


def test_score_of_one_bfcl_file_reads_that_file_only(shared_data, tmp_path, capsys):
    (tmp_path / BFCL_FILE).write_text(GOOD_BFCL)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / BFCL_FILE).write_text(GOOD_BFCL.replace("base=10", "base=99") * 3)
    out = tmp_path / "out.jsonl"
    argv = ["score", str(tmp_path / BFCL_FILE), "--format", "bfcl", "-o", str(out)]
    assert main([*argv, "--data", str(shared_data / "bfcl")]) == 0
    assert [json.loads(line)["score"] for line in out.read_text().splitlines()] == [1.0]


def test_a_deep_otlp_document_is_a_named_problem_not_out_of_memory(tmp_path):
    traces = tmp_path / "t.json"
    traces.write_text("[\n" + DEEP + "\n]")
    # in a process of its own, to read its peak memory: a 200 KB file of brackets once took
    # 10.5 GB there (ijson parses a whole read buffer, prefixes and all, before the depth
    # check sees an event)
    probe = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "print(done.returncode, peak, done.stderr.strip(), sep='\\n')\n"
    )
    tooleval = Path(sys.executable).with_name("tooleval")
    done = subprocess.run(
        [sys.executable, "-c", probe, str(tooleval), "monitor", str(traces), "--no-store"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    code, peak_kb, line = done.stdout.split("\n", 2)
    assert int(code) == 2, done.stdout + done.stderr
    assert str(traces) in line and "nested deeper than" in line
    assert int(peak_kb) < 400_000, f"peak {int(peak_kb) / 1e3:.0f} MB"


# ------------------------------------------------- an output path over the store


def _stored_run(tmp_path: Path) -> tuple[Path, str]:
    traces = tmp_path / "t.jsonl"
    call = {"name": "f", "args": {}}
    messages = [{"role": "user", "content": "x"}, {"role": "assistant", "tool_calls": [call]}]
    traces.write_text(json.dumps({"messages": messages}) + "\n")
    store = tmp_path / "s.db"
    assert main(["monitor", str(traces), "--store", str(store)]) == 0
    from tooleval.store import open_store

    with open_store(str(store)) as opened:
        run_id = opened.list_runs()[0].id
    return store, run_id


@pytest.mark.parametrize("command", ["report", "monitor_json", "trace_to_case", "score"])
def test_an_output_path_naming_the_run_store_is_refused_and_the_store_kept(
    tmp_path, capsys, command
):
    store, run_id = _stored_run(tmp_path)
    capsys.readouterr()
    before = store.read_bytes()
    traces = str(tmp_path / "t.jsonl")
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"id": "1", "tools_called": ["f"], "expected_tools": ["f"]}))
    argv = {
        "report": ["report", run_id, "--store", str(store), "-o", str(store)],
        "monitor_json": ["monitor", traces, "--no-store", "--json", str(store)],
        "trace_to_case": ["trace", "to-case", traces, "--session", "x", "-o", str(store)],
        "score": ["score", str(rows), "--metric", "tool_correctness", "-o", str(store)],
    }[command]
    assert main(argv) == 2
    assert "SQLite database" in _one_line(capsys)
    assert store.read_bytes() == before


@pytest.mark.parametrize(
    "content",
    [b"{broken\n{also\n", DEEP.encode() + b"\n", b"[\n" + DEEP.encode() + b"\n]", b'[{"id": 1}]'],
    ids=["bad_lines", "deep_line", "deep_document", "json_array"],
)
def test_trace_sessions_with_nothing_read_is_exit_2_not_an_empty_listing(tmp_path, capsys, content):
    traces = tmp_path / "t.json"
    traces.write_bytes(content)
    assert main(["trace", "sessions", str(traces)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert str(traces) in _one_line_of(captured.err)


def test_a_deep_json_text_cell_names_its_row_and_field():
    from tooleval.formats import sample_from_row
    from tooleval.formats.json_limits import NestingTooDeep

    with pytest.raises(NestingTooDeep, match="row 4, field reference_topics"):
        sample_from_row({"input": "x", "reference_topics": DEEP}, row_number=4)
