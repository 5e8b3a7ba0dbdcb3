"""evaluation.files.score_file: the one function that scores a file, for `score` (and its tally)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tooleval.errors import InputError
from tooleval.evaluation.file_tally import KernelCounts, ResultLines
from tooleval.evaluation.files import FileJob, check_fields_first, score_file
from tooleval.metrics.engine import kernel_status
from tooleval.metrics.registry import bind

NAMES = ["tool_correctness", "tool_call_f1"]
N = 300
UNSCORED = sum(1 for i in range(N) if i % 7 == 3)


def _rows(path: Path) -> Path:
    items = []
    for i in range(N):
        row = {"id": f"r{i}", "tools_called": ["a", "b"] if i % 3 else ["a"], "gold": ["a", "b"]}
        if i % 7 == 3:
            row["gold"] = None  # unscored: no reference in this row
        items.append(row)
    path.write_text("".join(json.dumps(r) + "\n" for r in items))
    return path


def _job(path: Path) -> FileJob:
    metrics = [bind(name) for name in NAMES]
    return FileJob(str(path), "jsonl", False, metrics, NAMES, {"expected_tools": "gold"})


class _Progress:
    def __init__(self) -> None:
        self.seen: list[int] = []

    def update(self, rows: int) -> None:
        self.seen.append(rows)


_COMPILED = pytest.mark.skipif(
    kernel_status() != "compiled",
    reason="the compiled kernel is not built, or TOOLEVAL_NO_KERNEL disables it",
)


@pytest.mark.parametrize("kernel", [pytest.param(True, marks=_COMPILED), False])
def test_both_paths_write_the_same_bytes_and_count_the_same(tmp_path, monkeypatch, kernel):
    if not kernel:
        monkeypatch.setenv("TOOLEVAL_NO_KERNEL", "1")
    data = _rows(tmp_path / "d.jsonl")
    job = _job(data)
    check_fields_first(job)
    out, progress = io.BytesIO(), _Progress()
    found = score_file(job, out, tally=True, table_rows=5, progress=progress)
    assert isinstance(found, KernelCounts if kernel else ResultLines)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(lines) == N * len(NAMES)
    for name in NAMES:
        mine = [x for x in lines if x["metric"] == name]
        tally = found.tallies[name]
        assert tally.passed == sum(1 for x in mine if x["score"] is not None and x["passed"])
        assert tally.unscored == sum(1 for x in mine if x["score"] is None) == UNSCORED
        assert tally.rows == N
    assert found.table is not None and len(found.table.shown()) == 5
    assert found.rows == N
    assert progress.seen and progress.seen[-1] <= N and progress.seen == sorted(progress.seen)


def test_no_tally_is_made_when_none_is_asked_for(tmp_path):
    out = io.BytesIO()
    assert score_file(_job(_rows(tmp_path / "d.jsonl")), out) is None
    assert len(out.getvalue().splitlines()) == N * len(NAMES)


def test_an_empty_file_is_an_input_error_and_a_missing_field_is_refused_first(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    with pytest.raises(InputError, match="no rows to score"):
        score_file(_job(empty), io.BytesIO())
    unbound = tmp_path / "unbound.jsonl"
    unbound.write_text(json.dumps({"id": "a", "tools_called": ["a"], "ref": ["a"]}) + "\n")
    with pytest.raises(InputError, match="no row has a key 'gold'"):
        check_fields_first(_job(unbound))
