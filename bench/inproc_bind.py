"""In-process ``tooleval.metrics.bind(...).score(sample)`` vs ragas' bare ``ascore``, one process.

python bench/inproc_bind.py [--rows 4000] [--budget 1.0]

Both sides score the same generated rows (``bench/gen_rows.py``: 2- and
8-call rows with nested arguments, half with a mistake), converted to each
tool's objects before timing. ragas 0.4.3 ``ragas.metrics.collections
.ToolCallAccuracy().ascore`` is awaited in one event loop (its bare rule, no
I/O); tooleval binds each metric once and calls ``.score(sample)`` per row,
which returns a full :class:`~tooleval.model.Result` with its diagnosis.

Three tooleval columns per metric: ``.score(sample)`` as it comes (through
the compiled kernel when built: the diagnosis is written and decoded only
when read), ``.score(sample).diagnosis`` (the diagnosis read, so written and
decoded, for every row), and ``.score(sample)`` with ``TOOLEVAL_NO_KERNEL=1``
(the Python reference). CPU time, best of 3 passes; compare the ratios, not
the absolute numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")

HERE = Path(__file__).resolve().parent


def _best(run_pass: Callable[[], tuple[int, float]], repeats: int = 3) -> float:
    best = 0.0
    for _ in range(repeats):
        n, elapsed = run_pass()
        best = max(best, n / elapsed)
    return best


def sync_rate(score_one: Callable[[Any], Any], items: Sequence[Any], budget: float) -> float:
    def one_pass() -> tuple[int, float]:
        start = time.process_time()
        n = 0
        for item in items:
            score_one(item)
            n += 1
            if not n % 32 and time.process_time() - start > budget:
                break
        return n, time.process_time() - start

    return _best(one_pass)


def async_rate(score_one: Callable[[Any], Any], items: Sequence[Any], budget: float) -> float:
    async def one_pass() -> tuple[int, float]:
        start = time.process_time()
        n = 0
        for item in items:
            await score_one(item)
            n += 1
            if not n % 32 and time.process_time() - start > budget:
                break
        return n, time.process_time() - start

    return _best(lambda: asyncio.run(one_pass()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=4000)
    parser.add_argument("--budget", type=float, default=1.0, help="seconds per timed pass")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")  # ragas warns on every length mismatch

    import orjson
    from ragas.messages import AIMessage, HumanMessage
    from ragas.messages import ToolCall as RagasCall
    from ragas.metrics.collections import ToolCallAccuracy

    from tooleval.formats import sample_from_row
    from tooleval.metrics import bind
    from tooleval.metrics.engine import ENV_DISABLE, kernel_status

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rows.jsonl"
        subprocess.run(
            [sys.executable, str(HERE / "gen_rows.py"), "--rows", str(args.rows), "--out", path],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        rows = [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
    groups: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(len(row["expected_tools"]), []).append(row)

    ragas_metric = ToolCallAccuracy()
    variants = [
        ("tool_call_accuracy", {}),
        ("tool_call_f1", {}),
        ("tool_correctness", {}),
        ("trajectory_match", {"order": "flexible"}),
    ]
    print(f"kernel: {kernel_status()}; load average: {os.getloadavg()[0]:.1f}")
    print(
        f"{'calls':>5}  {'variant':<34} {'samples/s':>10} {'vs ragas':>9}"
        f" {'diag read':>10} {'vs ragas':>9} {'no kernel':>10} {'vs ragas':>9}"
    )
    for calls, group in sorted(groups.items()):
        kwargs = [
            {
                "user_input": [
                    HumanMessage(content=r["input"]),
                    AIMessage(content="", tool_calls=[RagasCall(**c) for c in r["tools_called"]]),
                ],
                "reference_tool_calls": [RagasCall(**c) for c in r["expected_tools"]],
            }
            for r in group
        ]
        samples = [sample_from_row(r) for r in group]
        ragas_rate = async_rate(lambda k: ragas_metric.ascore(**k), kwargs, args.budget)
        print(f"{calls:>5}  {'ragas collections ascore (1 loop)':<34} {ragas_rate:>10,.0f}")
        for name, options in variants:
            bound = bind(name, **options)
            ours = sync_rate(bound.score, samples, args.budget)
            read = sync_rate(lambda s, score=bound.score: score(s).diagnosis, samples, args.budget)
            reference = bind(name, **options)
            os.environ[ENV_DISABLE] = "1"  # read when a bound metric first scores
            reference.score(samples[0])
            del os.environ[ENV_DISABLE]
            python = sync_rate(reference.score, samples, args.budget)
            label = f"bind({name!r}).score"
            print(
                f"{calls:>5}  {label:<34} {ours:>10,.0f} {ours / ragas_rate:>8.2f}x"
                f" {read:>10,.0f} {read / ragas_rate:>8.2f}x"
                f" {python:>10,.0f} {python / ragas_rate:>8.2f}x"
            )
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
