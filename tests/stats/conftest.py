"""Stored runs built row by row (real SQLite through RunWriter), for the stats displays."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from tooleval.model import Result, Sample
from tooleval.store import RowRecord, open_store
from tooleval.store.records import MetricSpec
from tooleval.store.writer import RunWriter

METRIC = "tool_correctness"


def store_run(
    db: Path,
    name: str,
    verdicts: Sequence[Sequence[bool | None]],
    *,
    categories: Sequence[str] | None = None,
    metadata: Sequence[dict] | None = None,
    scores: Sequence[Sequence[float]] | None = None,
    config: dict | None = None,
) -> str:
    """A finished run of ``len(verdicts)`` dataset rows; ``verdicts[i]`` are row i's attempts
    (``None`` = an error attempt). More than one attempt makes it a repeated run."""
    k = len(verdicts[0])
    stride = len(verdicts)
    extra = config or {}
    config = {"repeat": {"n": k, "stride": stride}} if k > 1 else {}
    config.update(extra)
    with open_store(db) as store:
        writer = RunWriter.start(
            store,
            name,
            dataset={"path": "cases.jsonl"},
            connector={},
            metrics=[MetricSpec(METRIC, threshold=0.5)],
            config=config,
            batch_size=500,
        )
        for j in range(k):
            for i, row in enumerate(verdicts):
                verdict = row[j]
                meta = dict(metadata[i]) if metadata else {}
                meta["dataset_row_id"] = f"q{i}"
                sample = Sample(
                    id=f"q{i}", category=categories[i] if categories else None, metadata=meta
                )
                score = scores[i][j] if scores else float(bool(verdict))
                results = (
                    ()
                    if verdict is None
                    else (
                        Result(
                            metric=METRIC, score=score, passed=verdict, threshold=0.5, reason=""
                        ),
                    )
                )
                writer.add(
                    RowRecord(
                        writer.run_id,
                        j * stride + i,
                        f"q{i}" if k == 1 else f"q{i}#{j}",
                        sample,
                        results,
                        error="agent answered 500" if verdict is None else None,
                    )
                )
        writer.finish()
        return writer.run_id


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "runs.db"
