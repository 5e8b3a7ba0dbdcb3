"""``tooleval score`` on a large JSONL file against a bare orjson parse of it.

The floor for any scorer is reading the file: open it, split lines, parse
each with orjson. The ratio ``tooleval score time / bare parse time`` says
how much work scoring adds on top (target: at most 3x).

    python bench/file_bench.py                 # 1,000,000 two-call rows
    python bench/file_bench.py --workers 1,2   # also with `tooleval score --workers 2`
    python bench/file_bench.py --rows 50000 --profile   # where the time goes
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import subprocess
import sys
import time
from pathlib import Path

import orjson

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
OUT = BENCH / "out"
sys.path.insert(0, str(BENCH))

from gen_rows import write_rows  # noqa: E402

TARGET_RATIO = 3.0


def rows_file(n_rows: int, calls: str) -> Path:
    path = OUT / f"rows_{n_rows}_{calls.replace(',', '-')}.jsonl"
    if not path.exists():
        started = time.perf_counter()
        write_rows(path, n_rows, [int(c) for c in calls.split(",")])
        print(f"[file] generated {path.name} in {time.perf_counter() - started:.1f}s", flush=True)
    return path


def bare_parse(path: Path) -> float:
    """Seconds to read and orjson-parse every line, best of two."""
    best = float("inf")
    for _ in range(2):
        started = time.perf_counter()
        with path.open("rb") as fh:
            for line in fh:
                orjson.loads(line)
        best = min(best, time.perf_counter() - started)
    return best


def score_file(path: Path, metric: str, workers: int = 1) -> float:
    """Wall seconds of ``tooleval score`` as a user runs it (a subprocess)."""
    out = OUT / f"scores_{path.stem}.jsonl"
    started = time.perf_counter()
    subprocess.run(
        [
            str(ROOT / ".venv" / "bin" / "tooleval"),
            "score",
            str(path),
            "--metric",
            metric,
            "--output",
            str(out),
            "--workers",
            str(workers),
        ],
        check=True,
    )
    elapsed = time.perf_counter() - started
    out.unlink(missing_ok=True)
    return elapsed


def profile(path: Path, metric: str, *, top: int = 30) -> str:
    """cProfile of the CLI handler in-process; the text is also saved to bench/out."""
    from tooleval.cli.main import main as cli

    out = OUT / "profile_scores.jsonl"
    profiler = cProfile.Profile()
    profiler.enable()
    cli(["score", str(path), "--metric", metric, "--output", str(out)])
    profiler.disable()
    out.unlink(missing_ok=True)
    text = io.StringIO()
    stats = pstats.Stats(profiler, stream=text)
    stats.sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top)
    report = text.getvalue()
    (OUT / "score_profile.txt").write_text(report)
    return report


def run(n_rows: int, calls: str, metric: str, workers: tuple[int, ...] = (1,)) -> dict:
    path = rows_file(n_rows, calls)
    size_mb = path.stat().st_size / 1e6
    parse_s = bare_parse(path)
    print(
        f"[file] bare orjson parse of {n_rows:,} rows ({size_mb:.0f} MB): {parse_s:.2f}s",
        flush=True,
    )
    result: dict = {
        "rows": n_rows,
        "calls": calls,
        "size_mb": size_mb,
        "metric": metric,
        "bare_parse_s": parse_s,
        "target": TARGET_RATIO,
    }
    for count in workers:
        score_s = score_file(path, metric, count)
        ratio = score_s / parse_s
        verdict = "meets" if ratio <= TARGET_RATIO else "MISSES"
        print(
            f"[file] tooleval score --metric {metric} --workers {count}: {score_s:.2f}s "
            f"({n_rows / score_s:,.0f} rows/s) = {ratio:.1f}x bare parse "
            f"({verdict} the <= {TARGET_RATIO:.0f}x target)",
            flush=True,
        )
        if count == workers[0]:
            result.update({"workers": count, "score_s": score_s, "ratio": ratio})
        else:
            result[f"workers_{count}"] = {"score_s": score_s, "ratio": ratio}
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--calls", default="2", help="calls per row, comma-separated, cycled")
    parser.add_argument("--metric", default="tool_call_accuracy")
    parser.add_argument("--profile", action="store_true", help="profile instead of timing")
    parser.add_argument(
        "--workers", default="1", help="`tooleval score --workers` values to time, e.g. 1,2"
    )
    args = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    if args.profile:
        print(profile(rows_file(args.rows, args.calls), args.metric))
        return 0
    workers = tuple(int(w) for w in args.workers.split(","))
    result = run(args.rows, args.calls, args.metric, workers)
    (OUT / "file_bench.json").write_text(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode())
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    raise SystemExit(main())
