"""Several metrics in one pass: CPU of `tooleval score` with 1, 2 and 3 metrics, table and gate.

Each case (full result lines, then `--fields compact` lines, issue 32's "Output
sized to its use") is a fresh `tooleval score` process on the same two-call rows
(``--rows``, default 100,000, written by ``gen_rows.write_rows``); the figure
is the best CPU time (user + system of the child, seconds) of ``--repeat``
runs (default 3), with the wall time and max RSS of that run and the load
average before it. ``--before SRC`` runs every case a second time with another
source tree on ``PYTHONPATH`` (e.g. a checkout of the previous commit with its
kernel) so both figures come from one run on one machine. The goal (issue 32):
N deterministic metrics cost at most 1 + 0.3 (N - 1) times one metric's CPU.

    python bench/score_metrics.py
    python bench/score_metrics.py --rows 20000 --repeat 1
    python bench/score_metrics.py --before /tmp/before/src
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

from gen_rows import write_rows  # noqa: E402

METRICS = ["tool_call_accuracy", "tool_call_f1", "tool_correctness"]
GATE = ["--min-pass-rate", "0.1"]
COMPACT = ["--fields", "compact"]


def cases() -> list[tuple[str, list[str]]]:
    found = []
    for n in (1, 2, 3):
        chosen = [arg for name in METRICS[:n] for arg in ("--metric", name)]
        found.append((f"{n} metric(s)", chosen))
        found.append((f"{n} metric(s) + --table + gate", [*chosen, "--table", *GATE]))
    for n in (1, 3):
        chosen = [arg for name in METRICS[:n] for arg in ("--metric", name)]
        found.append((f"{n} metric(s), --fields compact", [*chosen, *COMPACT]))
        found.append(
            (f"{n} metric(s), compact + --table + gate", [*chosen, *COMPACT, "--table", *GATE])
        )
    return found


def run_once(src: str, data: Path, args: list[str], out: Path) -> tuple[float, float, int, int]:
    """CPU seconds, wall seconds, max RSS (KB) and bytes written of one `tooleval score`."""
    env = {**os.environ, "PYTHONPATH": src, "PYTHONDONTWRITEBYTECODE": "1", "CI": "true"}
    command = [sys.executable, "-m", "tooleval.cli.main", "score", str(data), *args]
    command += ["-o", str(out), "--no-progress", "--workers", "1"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed: {done.stderr.decode()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, after.ru_maxrss, out.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", metavar="SRC", help="another source tree to run beside")
    given = parser.parse_args()
    trees = [("now", str(ROOT / "src"))]
    if given.before:
        trees.insert(0, ("before", given.before))
    with tempfile.TemporaryDirectory() as folder:
        data = write_rows(Path(folder) / "rows.jsonl", given.rows, [2])
        out = Path(folder) / "out.jsonl"
        print(f"{given.rows:,} two-call rows, best CPU of {given.repeat}; {os.cpu_count()} CPUs")
        print(f"{'tree':7} {'case':40} {'CPU s':>7} {'xone':>5} {'wall s':>7} {'MB out':>7} load")
        for label, src in trees:
            one = None
            for name, args in cases():
                best: tuple[float, float, int, int] | None = None
                for _ in range(given.repeat):
                    load = os.getloadavg()[0]
                    got = run_once(src, data, args, out)
                    if best is None or got[0] < best[0]:
                        best = got
                assert best is not None
                if one is None:
                    one = best[0]
                print(
                    f"{label:7} {name:40} {best[0]:7.2f} {best[0] / one:5.2f} {best[1]:7.2f} "
                    f"{best[3] / 1e6:7.1f} {load:.1f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
