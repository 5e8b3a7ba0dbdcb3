"""Group commit (runs/commits.py) and the threshold rule applied to every stored result."""

from __future__ import annotations

import asyncio
import threading

import pytest

from tooleval.errors import StoreError
from tooleval.model import Result
from tooleval.runs.commits import GroupCommit
from tooleval.scoring import apply_threshold


def test_rows_arriving_during_a_commit_share_the_next_transaction() -> None:
    batches: list[list[int]] = []
    release = threading.Event()

    def write(rows) -> None:
        if not batches:
            release.wait(10)  # the first transaction is slow
        batches.append(list(rows))

    async def main() -> None:
        commits: GroupCommit[int] = GroupCommit(write)
        try:
            first = commits.submit(0)
            await asyncio.sleep(0.05)  # the writer thread took row 0 and is busy
            rest = [commits.submit(i) for i in range(1, 6)]
            assert not first.done() and not any(f.done() for f in rest)
            release.set()
            await asyncio.gather(first, *rest)
        finally:
            commits.close()

    asyncio.run(main())
    assert batches == [[0], [1, 2, 3, 4, 5]]


def test_a_failed_transaction_fails_every_row_in_it() -> None:
    def write(rows) -> None:
        raise StoreError(f"the store refused the write of {len(rows)} rows")

    async def main() -> list[object]:
        commits: GroupCommit[int] = GroupCommit(write)
        try:
            return await asyncio.gather(
                *(commits.submit(i) for i in range(3)), return_exceptions=True
            )
        finally:
            commits.close()

    outcomes = asyncio.run(main())
    assert all(isinstance(o, StoreError) for o in outcomes)


def test_close_stores_what_was_submitted_and_refuses_more() -> None:
    stored: list[int] = []

    async def main() -> asyncio.Future[None]:
        commits: GroupCommit[int] = GroupCommit(stored.extend)
        for i in range(4):
            commits.submit(i)
        commits.close()
        return commits.submit(99)

    late = asyncio.run(main())
    assert stored == [0, 1, 2, 3] and late.cancelled()


def test_apply_threshold_keeps_a_result_that_already_says_it() -> None:
    result = Result.scored("m", 0.6, reason="", threshold=0.5)
    assert apply_threshold(result, 0.5) is result
    moved = apply_threshold(result, 0.7)
    assert (moved.threshold, moved.passed) == (0.7, False)
    as_int = Result.scored("m", 1.0, reason="", threshold=1)
    assert type(apply_threshold(as_int, 1.0).threshold) is float  # stored as the plan says
    unscored = Result.unscored("m", "no reference", threshold=0.5)
    assert apply_threshold(unscored, 0.5) is unscored
    assert apply_threshold(unscored, 0.8).threshold == 0.8


@pytest.mark.parametrize("score,threshold", [(0.5, 0.5), (0.49, 0.5), (1.0, 0.0)])
def test_apply_threshold_decides_passed(score: float, threshold: float) -> None:
    result = Result.scored("m", score, reason="")
    assert apply_threshold(result, threshold).passed is (score >= threshold)
