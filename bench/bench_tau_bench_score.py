"""tau-bench runs per second through ``tooleval score --format tau-bench`` (prints numbers, never asserts).

The whole command in a subprocess, as a user runs it, on the 200 runs of
``gpt-4o-airline.json``: by replay (``--data`` tau-bench's source: reading,
replaying each run on fresh data, writing the result lines) and by calls (no
source: the fallback). The load average is printed with each figure.

    python bench/bench_tau_bench_score.py [--shared DIR] [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(argv: list[str], env: dict[str, str]) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "scored.jsonl"
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "tooleval", *argv, "-o", str(out)],
            check=True,
            env=env,
            stderr=subprocess.DEVNULL,
        )
        seconds = time.perf_counter() - started
        return seconds, sum(1 for _ in out.open())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = os.environ.get("TOOLEVAL_SHARED_DATA") or str(ROOT.parent / "shared" / "data")
    parser.add_argument("--shared", default=default)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    shared = Path(args.shared)
    runs = shared / "tau_bench" / "trajectories" / "gpt-4o-airline.json"
    source = shared / "tau_bench" / "source"
    env = {k: v for k, v in os.environ.items() if k != "TOOLEVAL_TAU_BENCH_SOURCE"}
    count = len(json.loads(runs.read_text()))
    print(f"{count} runs of {runs.name}; python {sys.version.split()[0]}; {os.cpu_count()} CPUs")
    for label, extra in (("replay (--data)", ["--data", str(source)]), ("calls (no source)", [])):
        for _ in range(args.repeat):
            load = os.getloadavg()[0]
            seconds, rows = _run(["score", str(runs), "--format", "tau-bench", *extra], env)
            print(
                f"tooleval score --format tau-bench, {label:<18} {rows:>4} rows in "
                f"{seconds:7.2f} s  {rows / seconds:7.1f} runs/s  (load {load:.1f} before, "
                f"{os.getloadavg()[0]:.1f} after)"
            )


if __name__ == "__main__":
    main()
