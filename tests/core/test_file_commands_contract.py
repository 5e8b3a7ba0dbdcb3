"""Issue 10, reproducers 12-20: `tooleval score` and the other file commands.

Each test names the reproducer it turns into a rule: never a silent number, never
lost data, never a traceback (exit 2 with one line for bad input, exit 3 with one
line for a bug).
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

from tooleval.cli import score as score_cli
from tooleval.cli.main import main
from tooleval.scoring import rows as scoring_rows
from tooleval.scoring import stream as scoring_stream

ROW = {"id": "r1", "tools_called": ["lookup", "cancel"], "expected_tools": ["lookup", "cancel"]}


def write_jsonl(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def score(*argv: str) -> int:
    return main(["score", *argv, "--metric", "tool_correctness"])


# ------------------------------------------------------------------ 12


@pytest.mark.parametrize("spelling", ["same", "dot", "link"])
def test_12_output_equal_to_input_is_refused_and_input_kept(tmp_path, capsys, spelling):
    data = write_jsonl(tmp_path / "d.jsonl", [ROW, ROW])
    before = data.read_bytes()
    target = {
        "same": str(data),
        "dot": str(tmp_path / "." / "d.jsonl"),
        "link": str(tmp_path / "link.jsonl"),
    }[spelling]
    if spelling == "link":
        os.symlink(data, target)
    assert score(str(data), "-o", target) == 2
    assert "also an input file" in one_error_line(capsys)
    assert data.read_bytes() == before


# ------------------------------------------------------------------ 13


def test_13_workers_are_capped_at_the_cpu_count(capsys):
    cpus = len(os.sched_getaffinity(0))
    assert score_cli.cap_workers(100_000) == cpus
    assert "lowered to" in capsys.readouterr().err
    assert score_cli.cap_workers(1) == 1


def test_13_a_one_chunk_file_starts_no_process(tmp_path, monkeypatch, capsys):
    import multiprocessing

    def no_pool(*args, **kwargs):
        raise AssertionError("a process pool was started for one chunk of rows")

    monkeypatch.setattr(multiprocessing, "get_context", no_pool)
    data = write_jsonl(tmp_path / "one.jsonl", [ROW])
    out = tmp_path / "out.jsonl"
    assert score(str(data), "--workers", "100000", "-o", str(out)) == 0
    assert [json.loads(line)["score"] for line in out.read_text().splitlines()] == [1.0]


def test_13_pool_size_is_at_most_the_number_of_chunks(tmp_path, monkeypatch):
    import multiprocessing

    sizes = []
    real = multiprocessing.get_context

    class Recording:
        def __init__(self) -> None:
            self.context = real()

        def Pool(self, processes, **kwargs):  # noqa: N802 - the multiprocessing name
            sizes.append(processes)
            return self.context.Pool(processes, **kwargs)

    monkeypatch.setattr(multiprocessing, "get_context", Recording)
    monkeypatch.setenv("TOOLEVAL_NO_KERNEL", "1")  # the compiled kernel uses threads, not a pool
    monkeypatch.setattr(scoring_stream, "_CHUNK_LINES", 2)
    monkeypatch.setattr(score_cli, "cap_workers", lambda n: n)  # as if there were 64 CPUs
    data = write_jsonl(tmp_path / "d.jsonl", [ROW] * 5)  # three chunks
    out = tmp_path / "out.jsonl"
    assert score(str(data), "--workers", "64", "-o", str(out)) == 0
    assert sizes == [3]
    assert len(out.read_text().splitlines()) == 5


# ------------------------------------------------------------------ 14


@pytest.mark.parametrize("workers", ["1", "2"])
def test_14_truncated_last_line_leaves_no_output_file(tmp_path, monkeypatch, capsys, workers):
    monkeypatch.setattr(scoring_stream, "_CHUNK_LINES", 2)
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(ROW) + "\n" for _ in range(5)) + json.dumps(ROW)[:20])
    out = tmp_path / "out.jsonl"
    assert score(str(data), "-o", str(out), "--workers", workers) == 2
    assert "row 6" in one_error_line(capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.jsonl"]


def test_14_an_existing_output_is_kept_whole_when_a_run_fails(tmp_path, capsys):
    out = tmp_path / "out.jsonl"
    out.write_text("previous results\n")
    data = write_jsonl(tmp_path / "d.jsonl", [ROW, "{broken"])
    assert score(str(data), "-o", str(out)) == 2
    assert out.read_text() == "previous results\n"


def test_14_an_unexpected_exception_is_exit_3_one_line_with_a_log(tmp_path, monkeypatch, capsys):
    # A bug outside one row's scoring (a metric raising is that row's unscored
    # reason, see tooleval.scoring.policy): here, writing the second line.
    calls = []

    def boom(row_id, result):
        calls.append(row_id)
        if len(calls) == 2:
            raise RuntimeError("simulated bug")
        return b'{"id": "x"}\n'

    monkeypatch.setattr(scoring_rows, "result_line", boom)
    monkeypatch.setenv("TOOLEVAL_NO_KERNEL", "1")  # the bug is simulated in the Python path
    data = write_jsonl(tmp_path / "d.jsonl", [ROW, ROW, ROW])
    out = tmp_path / "out.jsonl"
    assert score(str(data), "-o", str(out)) == 3
    line = one_error_line(capsys)
    assert "internal error: RuntimeError: simulated bug" in line
    log = Path(line.split("traceback in ")[1].split(";")[0])
    try:
        assert "Traceback" in log.read_text() and "simulated bug" in log.read_text()
    finally:
        log.unlink()
    assert not out.exists()
    # --debug prints the traceback instead, wherever it is given.
    calls.clear()
    assert score(str(data), "-o", str(out), "--debug") == 3
    err = capsys.readouterr().err
    assert "Traceback" in err and "internal error" in err.strip().splitlines()[-1]


# ------------------------------------------------------------------ 15


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("depth", [300, 2_000, 100_000])
def test_15_deep_arguments_are_a_named_error_in_score(tmp_path, capsys, depth):
    line = (
        '{"id": "deep", "tools_called": ["f"], '
        f'"expected_tools": [{{"name": "f", "args": {{"x": {nested(depth)}}}}}]}}'
    )
    data = write_jsonl(tmp_path / "d.jsonl", [ROW, line])
    assert score(str(data)) == 2
    message = one_error_line(capsys)
    assert "row 2" in message and "nested deeper than 100 levels" in message


@pytest.mark.parametrize("depth", [300, 100_000])
def test_15_deep_rows_in_dataset_check_are_exit_2(tmp_path, capsys, depth):
    line = (
        '{"id": "deep", "input": "hi", '
        f'"expected_tools": [{{"name": "f", "args": {{"x": {nested(depth)}}}}}]}}'
    )
    data = write_jsonl(tmp_path / "d.jsonl", [line])
    assert main(["dataset", "check", str(data)]) == 2
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert "nested" in captured.out + captured.err


@pytest.mark.parametrize("depth", [300, 100_000])
def test_15_deep_lines_in_monitor_are_named_and_never_pass(tmp_path, capsys, depth):
    line = '{"messages": ' + nested(depth) + "}"
    data = write_jsonl(tmp_path / "t.jsonl", [line])
    assert main(["monitor", str(data), "--no-store", "--fail-on", "redundancy"]) == 2
    message = one_error_line(capsys)
    assert "nested" in message or "invalid JSON" in message


def test_15_sample_from_row_limits_depth():
    from tooleval.formats import sample_from_row
    from tooleval.formats.json_limits import NestingTooDeep

    row = {"tools_called": ["f"], "expected_tools": [{"name": "f", "args": {"x": [[[[1]]]]}}]}
    deep = json.loads(json.dumps(row).replace("[[[[1]]]]", nested(150)))
    assert sample_from_row(row).expected_tools.calls[0].args == {"x": [[[[1]]]]}
    with pytest.raises(NestingTooDeep, match="row 9"):
        sample_from_row(deep, row_number=9)


# ------------------------------------------------------------------ 16


@pytest.mark.parametrize("where", ["a_file/x.jsonl", "a_directory", "a_directory/"])
def test_16_bad_score_output_path_is_one_line_before_work(tmp_path, monkeypatch, capsys, where):
    (tmp_path / "a_directory").mkdir()
    (tmp_path / "a_file").write_text("")  # a folder that cannot be made
    data = write_jsonl(tmp_path / "d.jsonl", [ROW])
    scored = []
    monkeypatch.setattr(scoring_rows, "score_sample", lambda *a: scored.append(a))
    monkeypatch.setattr(scoring_stream, "score_sample", lambda *a: scored.append(a))
    assert score(str(data), "-o", str(tmp_path / where)) == 2
    assert "--output" in one_error_line(capsys)
    assert scored == []


@pytest.mark.parametrize("option", ["--json", "--emit"])
@pytest.mark.parametrize("where", ["a_file/x.json", "a_directory"])
def test_16_bad_monitor_output_path_is_one_line_before_work(tmp_path, capsys, option, where):
    (tmp_path / "a_directory").mkdir()
    (tmp_path / "a_file").write_text("")
    traces = write_jsonl(tmp_path / "t.jsonl", [{"messages": [{"role": "user", "content": "x"}]}])
    assert main(["monitor", str(traces), "--no-store", option, str(tmp_path / where)]) == 2
    assert option in one_error_line(capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_directory", "a_file", "t.jsonl"]


@pytest.mark.parametrize(
    "command",
    [
        lambda data, out: ["score", str(data), "--metric", "tool_correctness", "-o", str(out)],
        lambda data, out: ["monitor", str(data), "--no-store", "--json", str(out)],
    ],
    ids=["score -o", "monitor --json"],
)
def test_16_output_folders_that_do_not_exist_are_made(tmp_path, command):
    # One rule for every output option (as `run --junit reports/j.xml` always did).
    log = {"messages": [{"role": "user", "content": "x"}]}  # a row and a conversation log
    data = write_jsonl(tmp_path / "d.jsonl", [ROW | log])
    out = tmp_path / "reports" / "nightly" / "out.json"
    assert main(command(data, out)) == 0
    assert out.is_file()


def test_16_trace_to_case_output_checked_before_reading(tmp_path, capsys):
    traces = write_jsonl(tmp_path / "t.jsonl", [{"messages": [{"role": "user", "content": "x"}]}])
    code = main(["trace", "to-case", str(traces), "--session", "x", "-o", str(traces)])
    assert code == 2 and "also an input file" in one_error_line(capsys)


# ------------------------------------------------------------------ 17


@pytest.mark.parametrize("content", ["", "\n\n  \n", "\ufeff"])
def test_17_empty_input_is_exit_2_not_silent(tmp_path, capsys, content):
    data = tmp_path / "empty.jsonl"
    data.write_text(content, encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert score(str(data), "-o", str(out)) == 2
    assert "empty" in one_error_line(capsys)
    assert not out.exists()


def test_17_empty_stdin_is_exit_2(monkeypatch, capsys):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"\n")))
    assert score("-") == 2
    assert "no rows to score" in one_error_line(capsys)


@pytest.mark.parametrize("column", ["calls", "tool_calls", "actual_tools", "Predicted_Calls"])
def test_17_calls_in_a_misnamed_column_are_flagged(tmp_path, capsys, column):
    data = write_jsonl(tmp_path / "d.jsonl", [{"id": "1", column: ["a"], "expected_tools": ["a"]}])
    assert score(str(data)) == 2
    message = one_error_line(capsys)
    assert f"column {column}" in message and "tools_called" in message


def test_17_a_row_with_no_source_of_calls_is_flagged_but_an_empty_list_is_scored(tmp_path, capsys):
    data = write_jsonl(tmp_path / "d.jsonl", [{"id": "1", "expected_tools": ["a"]}])
    assert score(str(data)) == 2
    assert "nothing says which tools the agent called" in one_error_line(capsys)
    ok = write_jsonl(
        tmp_path / "ok.jsonl", [{"id": "1", "tools_called": [], "expected_tools": ["a"]}]
    )
    out = tmp_path / "out.jsonl"
    assert score(str(ok), "-o", str(out)) == 0
    assert json.loads(out.read_text())["score"] == 0.0


def test_17_metrics_that_need_no_calls_accept_rows_without_them(tmp_path):
    from tooleval.metrics.registry import list_metrics

    no_calls = [m for m in list_metrics() if "tools_called" not in m.requires and not m.needs_judge]
    if not no_calls:
        pytest.skip("every deterministic metric reads the agent's calls")
    data = write_jsonl(tmp_path / "d.jsonl", [{"id": "1", "output": "done", "reference": "done"}])
    out = tmp_path / "out.jsonl"
    code = main(["score", str(data), "--metric", no_calls[0].name, "-o", str(out)])
    assert code == 0 and len(out.read_text().splitlines()) == 1


# ------------------------------------------------------------------ 18


def _bytes_of(kind: str) -> bytes:
    return {
        "empty": b"",
        "blank": b"\n \n",
        "binary": bytes(range(256)) * 4,
        "csv": b"id,input,expected_tools\n1,hi,search\n",
        "json_array": b'[{"id": 1, "input": "hi"}]',
        "not_json": b"hello world\n",
        "bad_lines": b"{broken\n{also broken\n",
    }[kind]


@pytest.mark.parametrize(
    "kind", ["empty", "blank", "binary", "csv", "json_array", "not_json", "bad_lines"]
)
def test_18_monitor_on_unreadable_files_is_exit_2_so_fail_on_cannot_pass(tmp_path, capsys, kind):
    traces = tmp_path / "t.jsonl"
    traces.write_bytes(_bytes_of(kind))
    assert main(["monitor", str(traces), "--no-store", "--fail-on", "redundancy"]) == 2
    assert str(traces) in one_error_line(capsys)


def test_18_trace_sessions_on_an_empty_file_is_exit_2(tmp_path, capsys):
    traces = tmp_path / "t.jsonl"
    traces.write_bytes(b"")
    assert main(["trace", "sessions", str(traces)]) == 2
    assert "empty" in one_error_line(capsys)


# ------------------------------------------------------------------ 19

CSV_TEXT = 'id,tools_called,expected_tools\nr1,"[""lookup"", ""cancel""]","lookup, cancel"\n'


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("d.csv", CSV_TEXT.encode()),
        ("d.csv", b"\xef\xbb\xbf" + CSV_TEXT.encode()),
        ("d.txt", b"\xef\xbb\xbf" + CSV_TEXT.encode()),  # CSV told by its content
        ("d.tsv", b'id\ttools_called\texpected_tools\nr1\t["lookup", "cancel"]\tlookup, cancel\n'),
        ("d.jsonl", b"\xef\xbb\xbf" + json.dumps(ROW).encode() + b"\n"),
        ("d.json", json.dumps([ROW]).encode()),
    ],
)
def test_19_csv_bom_and_json_files_are_read_as_what_they_are(tmp_path, name, content):
    data = tmp_path / name
    data.write_bytes(content)
    out = tmp_path / "out.jsonl"
    assert score(str(data), "-o", str(out)) == 0
    [result] = [json.loads(line) for line in out.read_text().splitlines()]
    assert result["id"] == "r1" and result["score"] == 1.0


def test_19_parquet_is_read(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    data = tmp_path / "d.parquet"
    pq.write_table(
        pa.table({"id": ["r1"], "tools_called": [["lookup"]], "expected_tools": [["lookup"]]}), data
    )
    out = tmp_path / "out.jsonl"
    assert score(str(data), "-o", str(out)) == 0
    assert json.loads(out.read_text())["score"] == 1.0


def test_19_semicolon_csv_gets_a_sensible_message(tmp_path, capsys):
    data = tmp_path / "d.csv"
    data.write_text("id;input;expected_tools\n1;cancel 4471;lookup_order\n")
    assert score(str(data)) == 2
    message = one_error_line(capsys)
    assert "semicolons" in message and "--bind" not in message


def test_19_a_bad_csv_cell_names_row_and_column(tmp_path, capsys):
    data = tmp_path / "d.csv"
    data.write_text('id,tools_called,expected_tools\nr1,"[""a""]","[oops"\n')
    assert score(str(data)) == 2
    message = one_error_line(capsys)
    assert "row 1" in message and "expected_tools" in message


# ------------------------------------------------------------------ 20


def partial_order_row(seed: int, n: int = 40, pairs: int = 60) -> dict:
    rng = random.Random(seed)
    before: set[tuple[int, int]] = set()
    while len(before) < pairs:
        a, b = sorted(rng.sample(range(n), 2))
        before.add((a, b))
    return {
        "id": f"po{seed}",
        "tools_called": [{"name": "f", "args": {"k": rng.randrange(7)}} for _ in range(n)],
        "expected_tools": {
            "calls": [{"name": "f", "args": {"k": i % 7}} for i in range(n)],
            "before": sorted(before),
        },
    }


def test_20_a_hard_partial_order_row_is_unscored_with_the_reason(tmp_path):
    data = write_jsonl(tmp_path / "d.jsonl", [ROW, partial_order_row(20), ROW])
    out = tmp_path / "out.jsonl"
    code = main(
        ["score", str(data), "--metric", "tool_correctness", "--option", "check_ordering=true"]
        + ["-o", str(out)]
    )
    assert code == 0
    results = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["score"] for r in results] == [1.0, None, 1.0]
    assert "ordering search stopped after" in results[1]["reason"]
    assert results[1]["passed"] is None


def test_20_the_budget_applies_to_the_python_api_too(monkeypatch):
    from tooleval.formats import sample_from_row
    from tooleval.matching import partial_order
    from tooleval.matching.partial_order import SearchBudgetExceeded
    from tooleval.metrics.registry import score_sample

    monkeypatch.setattr(partial_order, "SEARCH_BUDGET", 500)
    sample = sample_from_row(partial_order_row(20))
    with pytest.raises(SearchBudgetExceeded, match="ordering search stopped after 500 steps"):
        score_sample("tool_correctness", sample, check_ordering=True)


def _best_ordered_total(weights, before):
    """Brute force: the heaviest total over every pairing that keeps the constraints."""
    from itertools import permutations

    from tooleval.matching.assignment import transitive_closure

    rows, cols = len(weights), len(weights[0])
    closure = transitive_closure(rows, before)
    best = 0
    for targets in permutations([*range(cols), *([None] * rows)], rows):
        pairs = [(i, j) for i, j in enumerate(targets) if j is not None and weights[i][j]]
        col = dict(pairs)
        if any((i, i) in closure for i in col):
            continue
        if any(a in col and b in col and not col[a] < col[b] for a, b in closure if a != b):
            continue
        best = max(best, sum(weights[i][j] for i, j in pairs))
    return best


def test_20_bounded_search_is_optimal_and_keeps_the_constraints_on_small_rows():
    from tooleval.matching.assignment import transitive_closure
    from tooleval.matching.partial_order import max_weight_partial_order

    rng = random.Random(10)
    for _ in range(150):
        rows, cols = rng.randint(1, 4), rng.randint(1, 4)
        weights = [[rng.choice([None, 1, 2, 5]) for _ in range(cols)] for _ in range(rows)]
        before = [(rng.randrange(rows), rng.randrange(rows)) for _ in range(rng.randint(0, 5))]
        pairs = max_weight_partial_order(weights, before)
        col = dict(pairs)
        closure = transitive_closure(rows, before)
        assert all(not (a in col and b in col) or col[a] < col[b] for a, b in closure if a != b)
        assert sum(weights[i][j] for i, j in pairs) == _best_ordered_total(weights, before)


# ------------------------------------------------------------------ OS errors


def test_unreadable_input_is_exit_2_one_line(tmp_path, capsys):
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    data = write_jsonl(tmp_path / "d.jsonl", [ROW])
    data.chmod(0)
    assert score(str(data)) == 2
    assert "d.jsonl" in one_error_line(capsys)


def test_a_directory_as_input_is_exit_2(tmp_path, capsys):
    assert score(str(tmp_path)) == 2
    assert "is a directory" in one_error_line(capsys)


# ------------------------------------------------------------------ terminal output


def test_table_shows_dataset_text_as_text_never_as_markup_or_escapes(tmp_path, capsys):
    row = {
        "id": "[/b]\x1b[31mred",
        "category": "[bold]x",
        "tools_called": ["a\u202eb"],
        "expected_tools": ["a"],
    }
    data = write_jsonl(tmp_path / "d.jsonl", [row])
    assert score(str(data), "--table", "-o", str(tmp_path / "out.jsonl")) == 0
    shown = capsys.readouterr().out
    assert "[/b]" in shown and "[bold]x" in shown and "a<U+202E>b" in shown
    assert "\x1b" not in shown and "\u202e" not in shown


def test_monitor_prints_trace_text_escaped(tmp_path, capsys):
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "look\x1b[2Jup", "arguments": "{}"},
    }
    turn = {"role": "assistant", "content": None, "tool_calls": [call]}
    messages = [{"role": "user", "content": "x"}] + [turn] * 4
    traces = write_jsonl(tmp_path / "t.jsonl", [{"id": "s\u202e1", "messages": messages}])
    assert main(["monitor", str(traces), "--no-store"]) == 0
    shown = capsys.readouterr().out
    assert "look" in shown and "s<U+202E>1" in shown  # the finding is printed, escaped
    assert "\x1b" not in shown and "\u202e" not in shown


# ------------------------------------------------------------------ io_atomic


def test_atomic_write_leaves_the_target_alone_on_failure(tmp_path):
    from tooleval.io_atomic import atomic_write

    target = tmp_path / "out.jsonl"
    target.write_text("old\n")
    with pytest.raises(RuntimeError), atomic_write(target) as handle:
        handle.write(b"half")
        raise RuntimeError("stopped")
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]
    with atomic_write(target, "w") as handle:
        handle.write("new\n")
    assert target.read_text() == "new\n"
    assert target.stat().st_mode & 0o777 != 0o600  # a plain file's mode, not mkstemp's


def test_check_output_path_names_each_problem(tmp_path):
    from tooleval.errors import InputError
    from tooleval.io_atomic import check_output_path

    (tmp_path / "dir").mkdir()
    source = tmp_path / "in.jsonl"
    source.write_text("{}\n")
    cases = {
        str(source / "x"): "is not a directory",  # a file where a folder should be
        str(source / "d" / "x"): "cannot create the directory",
        str(tmp_path / "dir"): "is a directory",
        "": "empty string",
        str(source): "also an input file",
    }
    for path, needle in cases.items():
        with pytest.raises(InputError, match=needle):
            check_output_path(path, option="-o", inputs=[source])
    assert check_output_path(tmp_path / "new.jsonl") == tmp_path / "new.jsonl"
    made = tmp_path / "reports" / "ci" / "x.xml"  # folders that do not exist yet are made
    assert check_output_path(made) == made and made.parent.is_dir()


def test_trace_sessions_prints_trace_text_escaped(tmp_path, capsys):
    call = {"id": "c", "type": "function", "function": {"name": "a\u202eb", "arguments": "{}"}}
    messages = [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
    ]
    traces = write_jsonl(tmp_path / "t.jsonl", [{"id": "s\x1b[2J1", "messages": messages}])
    assert main(["trace", "sessions", str(traces)]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith("s1\t1 calls") and "a<U+202E>b" in shown
