"""One set of hostile rows, every entry point, the same verdicts (the scoring pipeline's policy).

The rows: a plain passing row, the partial-order row past the search budget,
arguments nested 400 levels deep, two bad calls, a row without
``expected_tools``, text garbage where calls belong, and (for the entry points
that read lines) a binary line. Each entry point (``tooleval score``, the
Python API, a run against a real HTTP agent on 127.0.0.1, ``tooleval
rescore``, Ray's batch function here and Ray itself in tests/scale/test_hostile_rows.py, the pytest
plugin) must give each row the same verdict: passed, unscored with the reason,
or unreadable with the message naming what is wrong (``tooleval score`` stops
with exit 2 and that message; runs and Ray store ``row could not be read:``).
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.agent_stub import AgentStub

from tooleval.cli.main import main

METRIC = "tool_correctness"
OPTIONS = {"order": "strict"}


def _budget_row(seed: int = 20, n: int = 40, pairs: int = 60) -> dict[str, Any]:
    rng = random.Random(seed)
    before: set[tuple[int, int]] = set()
    while len(before) < pairs:
        a, b = sorted(rng.sample(range(n), 2))
        before.add((a, b))
    return {
        "tools_called": [{"name": "f", "args": {"k": rng.randrange(7)}} for _ in range(n)],
        "expected_tools": {
            "calls": [{"name": "f", "args": {"k": i % 7}} for i in range(n)],
            "before": sorted(before),
        },
    }


def _deep(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


# id -> (row fields, verdict, what the reason or message says)
HOSTILE: dict[str, tuple[dict[str, Any], str, str]] = {
    "ok": (
        {"tools_called": ["lookup", "cancel"], "expected_tools": ["lookup", "cancel"]},
        "passed",
        "",
    ),
    "budget": (_budget_row(), "unscored", "ordering search stopped after"),
    "deep": (
        {"tools_called": ["f"], "expected_tools": [{"name": "f", "args": {"x": _deep(400)}}]},
        "unreadable",
        "nested deeper than 100 levels",
    ),
    "nameless_call": (
        {"tools_called": ["f"], "expected_tools": [{"args": {"q": 1}}]},
        "unreadable",
        "expected a call as",
    ),
    "number_name": (
        {"tools_called": ["f"], "expected_tools": [{"name": 42}]},
        "unreadable",
        "expected a tool name",
    ),
    "no_reference": ({"tools_called": ["f"]}, "unscored", "no expected_tools"),
    "garbage": (
        {"tools_called": ["f"], "expected_tools": "\x00\ufffd{{garbage"},
        "unreadable",
        "is not a tool name",
    ),
}
# For the entry points that read lines: control bytes and ANSI escapes, not JSON. (A byte
# that is not UTF-8 makes the dataset reader of runs refuse the whole file, naming the line.)
BINARY_LINE = "\x00\x01\x1b[31m{garbage \u2603\x7f\n".encode()
BINARY = ("binary", "unreadable", "(invalid|not valid) JSON")  # the file readers' wordings


def _rows() -> list[dict[str, Any]]:
    return [
        {"id": key, "input": f"case {key}", **fields} for key, (fields, _, _) in HOSTILE.items()
    ]


def _expected(*, binary: bool) -> dict[str, tuple[str, str]]:
    want = {key: (verdict, text) for key, (_, verdict, text) in HOSTILE.items()}
    if binary:
        want[BINARY[0]] = BINARY[1:]
    return want


def _verdict(score: Any, passed: Any, reason: str) -> tuple[str, str]:
    if reason.startswith("row could not be read") or "not scored: row could not be read" in reason:
        return "unreadable", reason
    if score is None:
        return "unscored", reason
    return ("passed" if passed else "failed"), reason


def _check(got: dict[str, tuple[str, str]], *, binary: bool) -> None:
    want = _expected(binary=binary)
    assert sorted(got) == sorted(want)
    for key, (verdict, text) in want.items():
        assert got[key][0] == verdict, (key, got[key])
        assert re.search(text, got[key][1]), (key, got[key])


def _write(path: Path, rows: list[dict[str, Any]], *, binary: bool = False) -> Path:
    with path.open("wb") as out:
        for row in rows:
            out.write(json.dumps(row).encode() + b"\n")
        if binary:
            out.write(BINARY_LINE)
    return path


# ------------------------------------------------------------ tooleval score


def test_score_cli(tmp_path, capsys):
    # Each hostile line after the plain row (a file of one binary line is refused
    # whole: "a binary file"); an input error stops the file with exit 2.
    got: dict[str, tuple[str, str]] = {}
    rows = _rows()
    first = json.dumps(rows[0]).encode() + b"\n"
    cases = [(row["id"], json.dumps(row).encode() + b"\n") for row in rows[1:]]
    cases.append((BINARY[0], BINARY_LINE))
    for key, line in cases:
        data = tmp_path / f"{key}.jsonl"
        data.write_bytes(first + line)
        out = tmp_path / f"{key}.out.jsonl"
        code = main(
            ["score", str(data), "--metric", METRIC, "--option", "order=strict", "-o", str(out)]
        )
        captured = capsys.readouterr()
        if code == 2:  # an input error names the file and row: the row could not be read
            assert f"{data.name}, row 2" in captured.err, captured.err
            assert not out.exists()
            got[key] = ("unreadable", "row could not be read: " + captured.err)
            continue
        assert code == 0, captured.err
        results = [json.loads(line) for line in out.read_text().splitlines()]
        assert [r["id"] for r in results] == ["ok", key]
        got["ok"] = _verdict(results[0]["score"], results[0]["passed"], results[0]["reason"])
        got[key] = _verdict(results[1]["score"], results[1]["passed"], results[1]["reason"])
    _check(got, binary=True)


# ------------------------------------------------------------ Python API


def test_python_api():
    from tooleval.metrics import bind
    from tooleval.scoring import score_rows

    metric = bind(METRIC, **OPTIONS)
    got = {
        key: _verdict(r.score, r.passed, r.reason)
        for key, r in score_rows(metric, _rows(), strict=False)
    }
    _check(got, binary=False)
    # strict (the default): the first unreadable row raises, naming its row and field
    from tooleval.errors import InputError

    # (the budget row left out: its 50,000-step search, about 2 CPU-s, was scored just above)
    rows = [row for row in _rows() if row["id"] != "budget"]
    with pytest.raises(InputError, match="row 2"):
        list(score_rows(metric, rows))


# ------------------------------------------------------------ a run, then rescore


def _run_plan(tmp_path: Path, stub: AgentStub) -> Path:
    rows = _rows()
    for row in rows:
        stub.script(row["input"], tools=list(row["tools_called"]), output="done")
    dataset = [{k: v for k, v in row.items() if k != "tools_called"} for row in rows]
    _write(tmp_path / "cases.jsonl", dataset, binary=True)
    plan = {
        "name": "hostile",
        "dataset": {"path": "cases.jsonl"},
        "connector": {
            "type": "http",
            "url": stub.url + "/agent",
            "timeout": 5,
            "retry": {"retries": 0},
            "response": {
                "output": "$.output",
                "tool_calls": "$.steps[?(@.type=='tool_call')].tool",
            },
        },
        "metrics": [{"name": METRIC, "params": OPTIONS}],
        "gate": {"min_pass_rate": 0.0},
        "concurrency": 2,
    }
    path = tmp_path / "plan.yaml"
    path.write_text(yaml.safe_dump(plan, sort_keys=False))
    return path


def _stored_verdicts(store: Any, run_id: str) -> dict[str, tuple[str, str]]:
    keys = [*HOSTILE, BINARY[0]]  # unreadable rows have no id of their own: by position
    got = {}
    for row in store.iter_rows(run_id):
        (result,) = row.results
        got[keys[row.index]] = _verdict(result.score, result.passed, result.reason)
    return got


def test_run_against_an_http_agent_and_rescore(tmp_path, capsys):
    from tooleval.runs import run_plan
    from tooleval.runs.plan import load_plan
    from tooleval.runs.rescore import parse_metric_specs, rescore_run
    from tooleval.store import open_store

    with AgentStub() as stub:
        plan = load_plan(_run_plan(tmp_path, stub))
        with open_store(tmp_path / "runs.db") as store:
            outcome = run_plan(plan, store=store)
            got = _stored_verdicts(store, outcome.run_id)
            _check(got, binary=True)
            specs = parse_metric_specs([METRIC], ["order=strict"])
            again = rescore_run(store, outcome.run_id, specs)
            _check(_stored_verdicts(store, again), binary=True)


# ------------------------------------------------------------ Ray


def _ray_verdicts(out: list[dict[str, Any]]) -> dict[str, tuple[str, str]]:
    return {r["row_id"]: _verdict(r["score"], r["passed"], r["reason"]) for r in out}


def test_ray_batch_function():
    from tooleval.scale.rows import encode_row, score_rows

    rows = [encode_row(row) for row in _rows()]
    _check(_ray_verdicts(score_rows(rows, metric=METRIC, **OPTIONS)), binary=False)


# ------------------------------------------------------------ the pytest plugin


def test_pytest_plugin(tmp_path):
    _write(tmp_path / "cases.jsonl", _rows(), binary=True)
    (tmp_path / "test_hostile.py").write_text(
        textwrap.dedent(
            """
            import pytest
            from tooleval.testing import assert_tool_calls

            @pytest.mark.tooleval_dataset("cases.jsonl")
            def test_row(tooleval_case):
                assert_tool_calls(tooleval_case.expected_tools, tooleval_case.tools_called,
                                  order="strict", threshold=None)
            """
        )
    )
    report = tmp_path / "report.xml"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly"]
        + ["-p", "no:xdist", "--junitxml", str(report), "test_hostile.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr  # the budget row fails
    got = {}
    keys = iter([*HOSTILE, BINARY[0]])  # unreadable rows have no id of their own: in order
    for case in ET.parse(report).getroot().iter("testcase"):
        key = next(keys)
        skipped, failure = case.find("skipped"), case.find("failure")
        if skipped is not None:
            reason = skipped.get("message", "")
            is_unread = "row could not be read" in reason
            got[key] = ("unreadable" if is_unread else "unscored", reason)
        elif failure is not None:
            message = failure.get("message", "")
            verdict = "unscored" if "could not be scored" in message else "failed"
            got[key] = (verdict, message)
        else:
            got[key] = ("passed", "")
    _check(got, binary=True)
