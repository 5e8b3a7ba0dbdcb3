"""Fuzz the file commands through the CLI's main(): score, monitor, dataset check, run.

Rules checked on every input: the command exits 0/1/2 (never 3, never a
traceback) with one line on stderr when it refuses; every score is in [0, 1]
or unscored; every input row gives exactly one output row (or the command
stops with a named error and leaves no output file).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import event, given
from hypothesis import strategies as st
from tests.fuzz.support import (
    JSON,
    OTLP_REQUEST,
    check_result,
    fuzz_settings,
    mutated,
    run_cli,
    seed_conversations,
    seed_rows,
)

from tooleval.store import open_store

# Deterministic metrics with options each accepts (a judged metric needs `run`).
METRIC_RUNS = st.sampled_from(
    [
        ("tool_correctness", []),
        ("tool_correctness", ["--option", "order=strict"]),
        ("tool_correctness", ["--option", "exact_match=true"]),
        ("tool_call_accuracy", []),
        ("tool_call_accuracy", ["--option", "order=flexible"]),
        ("tool_call_f1", []),
        ("trajectory_match", []),
        ("output_contains", []),
    ]
)

# Mostly rows that read (so scoring itself is fuzzed), some broken ones.
_SEED_LINE = st.sampled_from(seed_rows()).map(json.dumps)
LINE = st.one_of(
    _SEED_LINE,
    _SEED_LINE,
    _SEED_LINE,
    mutated(seed_rows()).map(json.dumps),
    mutated(seed_rows()).map(json.dumps),
    JSON.map(json.dumps),
    st.text(max_size=40),
    st.just(""),
)
GOOD_LINES = st.lists(st.one_of(_SEED_LINE, mutated(seed_rows()).map(json.dumps)), max_size=5)


def _lines_file(directory: Path, lines: list[str], name: str = "d.jsonl") -> Path:
    path = directory / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _score(path: Path, out: Path, metric: str, options: list[str]) -> Any:
    result = run_cli(["score", str(path), "--metric", metric, *options, "-o", str(out)])
    # A metric refusing an option for itself is a usage error before any row is read.
    result.check_clean()
    return result


@fuzz_settings(80)
@given(
    lines=st.lists(LINE, min_size=0, max_size=4) | GOOD_LINES,
    metric_run=METRIC_RUNS,
)
def test_score_on_jsonl_lines(lines, metric_run):
    metric, options = metric_run
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        data = _lines_file(directory, lines)
        out = directory / "out.jsonl"
        result = _score(data, out, metric, options)
        event(f"exit {result.code}")
        if result.code == 0:
            results = [json.loads(x) for x in out.read_text().splitlines()]
            assert len(results) == sum(1 for line in lines if line.strip())  # no silent drop
            for row in results:
                check_result(row)
        else:
            assert not out.exists()  # nothing that looks complete
            assert sorted(p.name for p in directory.iterdir()) == ["d.jsonl"]


@fuzz_settings(60)
@given(raw=st.binary(max_size=400), name=st.sampled_from(["d.jsonl", "d.csv", "d.txt", "d.json"]))
def test_score_on_random_bytes(raw, name):
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        data = directory / name
        data.write_bytes(raw)
        out = directory / "out.jsonl"
        result = _score(data, out, "tool_correctness", [])
        if result.code == 0:
            for line in out.read_text().splitlines():
                check_result(json.loads(line))
        else:
            assert not out.exists()


@fuzz_settings(8)  # each example starts a process pool: few examples, several chunks each
@given(rows=st.lists(st.sampled_from(seed_rows()) | mutated(seed_rows()), min_size=3, max_size=6))
def test_score_with_workers_equals_in_process(rows):
    from tooleval.scoring import stream as score_cli

    chunk_lines = score_cli._CHUNK_LINES
    score_cli._CHUNK_LINES = 2  # several chunks from a few rows
    try:
        _workers_equal(rows)
    finally:
        score_cli._CHUNK_LINES = chunk_lines


def _workers_equal(rows: list) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        data = _lines_file(directory, [json.dumps(r) for r in rows])
        one = run_cli(
            ["score", str(data), "--metric", "tool_correctness", "-o", str(directory / "1")]
        )
        two = run_cli(
            ["score", str(data), "--metric", "tool_correctness", "-o", str(directory / "2")]
            + ["--workers", "2"]
        )
        one.check_clean()
        two.check_clean()
        assert (one.code, one.err) == (two.code, two.err)
        if one.code == 0:
            assert (directory / "1").read_bytes() == (directory / "2").read_bytes()


_TRACE_SEEDS = [*seed_conversations(), OTLP_REQUEST]
TRACE_LINE = st.one_of(
    st.sampled_from(_TRACE_SEEDS).map(json.dumps),
    st.sampled_from(_TRACE_SEEDS).map(json.dumps),
    mutated(_TRACE_SEEDS).map(json.dumps),
    mutated(_TRACE_SEEDS).map(json.dumps),
    JSON.map(json.dumps),
    st.text(max_size=30),
)


@fuzz_settings(60)
@given(lines=st.lists(TRACE_LINE, min_size=0, max_size=4) | st.binary(max_size=200))
def test_monitor_never_passes_on_nothing(lines):
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        path = directory / "t.jsonl"
        if isinstance(lines, bytes):
            path.write_bytes(lines)
        else:
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        report = directory / "r.json"
        result = run_cli(
            ["monitor", str(path), "--no-store", "--json", str(report)]
            + ["--fail-on", "redundancy", "retry_loop"]
        )
        result.check_clean(allowed=(0, 1, 2))
        event(f"exit {result.code}")
        if result.code in (0, 1):
            document = json.loads(report.read_text())
            assert document["sessions"] > 0  # a gate only passes on something read
            ingest = document["ingest"]
            if ingest["spans"] == 0:  # conversation lines: each a session or a problem
                skipped = len(ingest["problems"]) + ingest["problems_dropped"]
                assert ingest["lines"] == document["sessions"] + skipped
        else:
            assert not report.exists()


@fuzz_settings(50)
@given(
    lines=st.lists(LINE, min_size=0, max_size=5) | st.binary(max_size=200).map(lambda b: b),
    name=st.sampled_from(["d.jsonl", "d.csv", "d.json"]),
)
def test_dataset_check_exits_0_or_2_without_traceback(lines, name):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        if isinstance(lines, bytes):
            path.write_bytes(lines)
        else:
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        result = run_cli(["dataset", "check", str(path)])
        assert "Traceback" not in result.err
        assert result.code in (0, 2), result.err


def echo_agent(row: dict[str, Any]) -> dict[str, Any]:
    """The agent under test in the run fuzz: it 'calls' what the row's ``fuzz_calls`` says."""
    calls = row.get("fuzz_calls")
    if calls == "boom":
        raise RuntimeError("agent failure")
    return {"output": "done", "tools_called": calls if isinstance(calls, list) else []}


RUN_ROW = st.fixed_dictionaries(
    {"id": st.uuids().map(str), "input": st.text(min_size=1, max_size=20)},
    optional={
        "expected_tools": JSON,
        "fuzz_calls": st.lists(st.sampled_from(["lookup", "cancel", "refund"]), max_size=3)
        | st.just("boom")
        | JSON,
        "metadata": JSON,
    },
)


@fuzz_settings(12)
@given(rows=st.lists(RUN_ROW | mutated(seed_rows()), min_size=1, max_size=4))
def test_run_with_a_python_connector(rows):
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        data = _lines_file(directory, [json.dumps(r) for r in rows], "cases.jsonl")
        plan = directory / "plan.yaml"
        plan.write_text(
            yaml.safe_dump(
                {
                    "name": "fuzz",
                    "dataset": {"path": str(data)},
                    "connector": {
                        "type": "python",
                        "target": "tests.fuzz.test_fuzz_cli:echo_agent",
                        "argument": "row",
                    },
                    "metrics": ["tool_correctness", "tool_call_f1"],
                }
            )
        )
        db = directory / "runs.db"
        result = run_cli(["run", str(plan), "--store", str(db), "--quiet"])
        result.check_clean(allowed=(0, 1, 2))
        event(f"exit {result.code}")
        if result.code == 2 or not db.exists():
            return
        with open_store(db) as store:
            runs = store.list_runs()
            if not runs:
                return  # stopped by the preflight, before a run was made
            (run,) = runs
            stored = list(store.iter_rows(run.id))
            assert len(stored) == len(rows)  # every row a result or an error, none dropped
            for record in stored:
                for res in record.results:
                    check_result(res.to_dict())
