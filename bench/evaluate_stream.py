"""`tooleval.evaluate(path, ...)` against `tooleval score` on the same rows: CPU and max RSS.

Each case is a fresh process on two-call rows (``--rows``, default 100,000, written by
``gen_rows.write_rows``): ``evaluate(path, METRICS)`` then reading every summary and
every score (``result[metric]``), and ``tooleval score FILE --metric ... -o OUT``;
the best CPU (user + system, seconds) of ``--repeat`` runs with that run's max RSS.
``--format csv`` (or tsv) writes the same rows as a table, each call list a JSON cell,
which ``evaluate`` and ``score`` read through the same ``score_file`` as JSONL.
``--before SRC`` runs the same with another source tree on ``PYTHONPATH``. The goal
(issue 32): evaluate within 1.5x the CLI's CPU per row, RSS under 150 MB at 1M rows.

    python bench/evaluate_stream.py
    python bench/evaluate_stream.py --rows 1000000 --repeat 1
    python bench/evaluate_stream.py --format csv --before /tmp/old-tree/src
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

import orjson  # noqa: E402
from gen_rows import write_rows  # noqa: E402

EVALUATE = """
import sys, tooleval
result = tooleval.evaluate(sys.argv[1], sys.argv[2].split(","))
for name in result.metrics:
    result[name]
    str(result.summaries[name])
"""


def run_once(src: str, command: list[str]) -> tuple[float, int]:
    """CPU seconds and max RSS (KB) of one process (its own rusage, by wait4)."""
    env = {**os.environ, "PYTHONPATH": src, "PYTHONDONTWRITEBYTECODE": "1", "CI": "true"}
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert child.stderr is not None
    err = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{command} failed: {err.decode()[-2000:]}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def as_table(jsonl: Path, kind: str) -> Path:
    """The rows of ``jsonl`` as a CSV or TSV file: scalar cells as they are, the rest as JSON."""
    path = jsonl.with_suffix(f".{kind}")
    with jsonl.open("rb") as source, path.open("w", newline="") as out:
        writer: Any = None
        for line in source:
            row = orjson.loads(line)
            cells = {
                key: value if isinstance(value, str) else orjson.dumps(value).decode()
                for key, value in row.items()
            }
            if writer is None:
                columns = list(cells)
                writer = csv.DictWriter(out, columns, delimiter="," if kind == "csv" else "\t")
                writer.writeheader()
            writer.writerow(cells)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--metrics", default="tool_call_accuracy")
    parser.add_argument("--format", choices=("jsonl", "csv", "tsv"), default="jsonl")
    parser.add_argument("--before", metavar="SRC", help="another source tree to run beside")
    given = parser.parse_args()
    trees = [("now", str(ROOT / "src"))]
    if given.before:
        trees.insert(0, ("before", given.before))
    with tempfile.TemporaryDirectory() as folder:
        data = write_rows(Path(folder) / "rows.jsonl", given.rows, [2])
        if given.format != "jsonl":
            data = as_table(data, given.format)
        out = Path(folder) / "out.jsonl"
        metric_args = [arg for name in given.metrics.split(",") for arg in ("--metric", name)]
        commands = {
            "evaluate(path)": [sys.executable, "-c", EVALUATE, str(data), given.metrics],
            "tooleval score -o": [
                *(sys.executable, "-m", "tooleval.cli.main", "score", str(data)),
                *(*metric_args, "-o", str(out), "--no-progress", "--workers", "1"),
            ],
        }
        print(
            f"{given.rows:,} two-call {given.format} rows, {given.metrics}, "
            f"best CPU of {given.repeat}"
        )
        print(f"{'tree':7} {'case':20} {'CPU s':>7} {'rows/CPU-s':>11} {'max RSS MB':>11} load")
        for label, src in trees:
            for name, command in commands.items():
                best: tuple[float, int] | None = None
                load = os.getloadavg()[0]
                for _ in range(given.repeat):
                    got = run_once(src, command)
                    best = got if best is None or got[0] < best[0] else best
                assert best is not None
                print(
                    f"{label:7} {name:20} {best[0]:7.2f} {given.rows / best[0]:11,.0f} "
                    f"{best[1] / 1024:11.0f} {load:.1f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
