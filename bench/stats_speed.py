"""How long every figure of tooleval.stats takes on a 1M-row run (not a timed test).

Run: ``.venv/bin/python bench/stats_speed.py [--rows 1000000]``; prints one line per figure
with the seconds, numpy on and off, and the load average.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections.abc import Callable
from typing import Any

from tooleval.stats import compare_paired, resample, summarize


def _time(label: str, fn: Callable[[], Any]) -> None:
    started = time.perf_counter()
    fn()
    print(f"| {label} | {time.perf_counter() - started:.2f} s |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    n = args.rows
    rng = random.Random(1)
    a1 = [[float(rng.random() < 0.8)] for _ in range(n)]
    b1 = [[float(rng.random() < 0.79)] for _ in range(n)]
    a3 = [[float(rng.random() < 0.8) for _ in range(3)] for _ in range(n)]
    b3 = [[float(rng.random() < 0.79) for _ in range(3)] for _ in range(n)]
    clusters = [i // 100 for i in range(n)]
    print(f"{n} rows, load average {os.getloadavg()[0]:.2f}\n| figure | time |\n|---|---|")
    _time("summary K=1 (Wilson)", lambda: summarize(a1))
    _time("summary K=3 (t, pass@k, pass^k, flaky)", lambda: summarize(a3))
    _time("summary K=1, clustered (10k clusters)", lambda: summarize(a1, clusters=clusters))
    _time("summary K=1 + BCa bootstrap 2000", lambda: summarize(a1, bootstrap=2000))
    _time("compare K=1 (McNemar, Newcombe)", lambda: compare_paired(a1, b1))
    _time("compare K=3 (t, sign-flip 2000, BCa 2000)", lambda: compare_paired(a3, b3))
    numpy_or_none = resample.numpy_or_none
    resample.numpy_or_none = lambda: None  # type: ignore[assignment]
    try:
        _time(
            "without numpy: compare K=3 (sign-flip; bootstrap skipped)",
            lambda: compare_paired(a3, b3),
        )
        _time(
            "without numpy: summary K=1 + BCa bootstrap 200",
            lambda: summarize(a1[: n // 10], bootstrap=200),
        )
    finally:
        resample.numpy_or_none = numpy_or_none  # type: ignore[assignment]


if __name__ == "__main__":
    main()
