"""Every tooleval benchmark in one run (``make bench``); prints targets, never asserts.

1. in-process scoring, one process per tool on the same generated rows
   (2-call and 8-call samples with nested arguments): tooleval vs ragas
   (legacy and collections ToolCallAccuracy), deepeval ToolCorrectnessMetric,
   agentevals trajectory match. Peers live in ``bench/.venvs/<tool>``,
   created from PyPI on first run.
2. ``import tooleval`` vs ``import ragas`` (fresh interpreters, best of N).
3. ``tooleval score`` on a 1,000,000-row file vs a bare orjson parse.
4. every path a user takes (``score`` with one and two metrics and ``--table``,
   ``evaluate()``, tau-bench replay, BFCL AST) against its reference, one
   process each, CPU and wall and the load (``paths.py``), and the OTLP
   receiver (protobuf and OTLP/JSON, no store and SQLite; the receiver
   process's CPU per span sent, ``receiver_speed.py``) against upb's own
   parse and attribute read, printed as one table.

Results go to stdout and ``bench/out/results.json``.

    python bench/run_all.py [--only inproc,import,file,paths,receiver] [--file-rows N]
        [--path-rows N] [--receiver-sessions N]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
OUT = BENCH / "out"
sys.path.insert(0, str(BENCH))

import file_bench  # noqa: E402
import paths as user_paths  # noqa: E402
import receiver_speed  # noqa: E402
from gen_rows import write_rows  # noqa: E402
from peers import MAIN_PYTHON, PEERS, ensure, run_worker  # noqa: E402

INPROC_ROWS = 40_000  # 20,000 rows of each shape; fast tools stop on the time budget
IMPORT_REPEATS = 7
# `import tooleval` is the target; the metrics, the ragas drop-in and the CLI
# entry point show what a user pays for the parts they actually use.
IMPORT_MODULES = (
    "tooleval",
    "tooleval.metrics",
    "tooleval.compat.ragas",
    "tooleval.cli.main",
    "ragas",
)
TARGET_SPEEDUP = 5.0  # tooleval vs ragas collections ToolCallAccuracy, per sample
TARGET_IMPORT_S = 0.3
PRIMARY = "tool_call_accuracy strict"  # tooleval's own metric, the headline number
COMPAT = "compat.ragas ToolCallAccuracy"


def machine() -> dict:
    info = {
        "nproc": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
    }
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                info["ram_gb"] = round(int(line.split()[1]) / 1e6, 1)
    except OSError:
        pass
    return info


# ------------------------------------------------------------------ in-process


def inproc() -> list[dict]:
    rows = OUT / f"rows_inproc_{INPROC_ROWS}.jsonl"
    if not rows.exists():
        write_rows(rows, INPROC_ROWS, [2, 8], seed=11)
    records: list[dict] = []
    for peer in PEERS:
        problem = ensure(peer)
        if problem:
            print(f"[inproc] skipping {peer.name}: {problem}", flush=True)
            records.append({"tool": peer.name, "variant": "(setup)", "error": problem})
            continue
        print(f"[inproc] {peer.name} ...", flush=True)
        records.extend(run_worker(peer, rows))
    _print_inproc(records)
    return records


def _rate(records: list[dict], tool: str, variant: str, calls: int) -> float | None:
    for r in records:
        if (r["tool"], r["variant"], r.get("calls")) == (tool, variant, calls) and "error" not in r:
            return r["samples_per_s"]
    return None


def _print_inproc(records: list[dict]) -> None:
    for r in records:
        if "error" in r:
            print(f"  ERROR {r['tool']} {r['variant']}: {r['error']}")
    for calls in sorted({r["calls"] for r in records if "calls" in r}):
        ours = _rate(records, "tooleval", PRIMARY, calls)
        compat = _rate(records, "tooleval", COMPAT, calls)
        print(f"\n{calls}-call samples (samples/s; ratio = tooleval {PRIMARY!r} / peer)")
        print(f"  {'tool':<11} {'variant':<40} {'samples/s':>11} {'ratio':>8} {'compat':>8}")
        for r in records:
            if r.get("calls") != calls or "error" in r:
                continue
            ratio = f"{ours / r['samples_per_s']:.2f}x" if ours else "-"
            compat_ratio = (
                f"{compat / r['samples_per_s']:.2f}x" if compat and r["tool"] == "ragas" else ""
            )
            print(
                f"  {r['tool']:<11} {r['variant']:<40} {r['samples_per_s']:>11,.0f} "
                f"{ratio:>8} {compat_ratio:>8}"
            )
        for variant in ("collections score (sync)", "collections ascore (1 loop)"):
            theirs = _rate(records, "ragas", variant, calls)
            if ours and theirs:
                speedup = ours / theirs
                verdict = "meets" if speedup >= TARGET_SPEEDUP else "MISSES"
                print(
                    f"  target: tooleval >= {TARGET_SPEEDUP:.0f}x ragas {variant}: "
                    f"{speedup:.2f}x ({verdict})"
                    + (f"; ragas drop-in {compat / theirs:.1f}x" if compat else "")
                )


# ------------------------------------------------------------------ import time

_IMPORT_PROBE = (
    "import time, sys; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
)


def import_times() -> dict:
    env = dict(os.environ, RAGAS_DO_NOT_TRACK="true", PYTHONDONTWRITEBYTECODE="1")
    results = {}
    for module in IMPORT_MODULES:
        best_import = best_wall = float("inf")
        for _ in range(IMPORT_REPEATS):
            started = time.perf_counter()
            done = subprocess.run(
                [str(MAIN_PYTHON), "-c", _IMPORT_PROBE.format(module=module)],
                capture_output=True,
                text=True,
                env=env,
            )
            wall = time.perf_counter() - started
            if done.returncode != 0:
                results[module] = {"error": done.stderr.strip().splitlines()[-1:]}
                break
            best_import = min(best_import, float(done.stdout.strip().splitlines()[-1]))
            best_wall = min(best_wall, wall)
        else:
            results[module] = {"import_s": best_import, "process_s": best_wall}
    print(f"\nimport time (best of {IMPORT_REPEATS} fresh interpreters)")
    for module, r in results.items():
        if "error" in r:
            print(f"  import {module}: ERROR {r['error']}")
        else:
            print(
                f"  import {module:<22} {r['import_s']:.3f}s "
                f"(whole `python -c` process {r['process_s']:.3f}s)"
            )
    ours = results.get("tooleval", {}).get("import_s")
    theirs = results.get("ragas", {}).get("import_s")
    if ours is not None:
        verdict = "meets" if ours < TARGET_IMPORT_S else "MISSES"
        line = f"  target: import tooleval < {TARGET_IMPORT_S}s: {ours:.3f}s ({verdict})"
        if theirs:
            line += f"; ragas takes {theirs / ours:.0f}x longer"
        print(line)
    return results


# ------------------------------------------------------------------ main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="inproc,import,file,paths,receiver")
    parser.add_argument("--path-rows", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3, help="runs of each path (min kept)")
    parser.add_argument("--file-rows", type=int, default=1_000_000)
    parser.add_argument(
        "--receiver-sessions", type=int, default=2000, help="sessions of 9 spans sent"
    )
    parser.add_argument(
        "--file-workers", default="1,2", help="`tooleval score --workers` values to time"
    )
    args = parser.parse_args(argv)
    parts = set(args.only.split(","))
    OUT.mkdir(parents=True, exist_ok=True)
    results: dict = {"machine": machine(), "started": time.strftime("%Y-%m-%d %H:%M:%S")}
    print("machine:", json.dumps(results["machine"]))
    if "inproc" in parts:
        results["inproc"] = inproc()
    if "import" in parts:
        results["import"] = import_times()
    if "file" in parts:
        print(flush=True)
        workers = tuple(int(w) for w in args.file_workers.split(","))
        results["file"] = file_bench.run(args.file_rows, "2", "tool_call_accuracy", workers)
    if "paths" in parts:
        print(flush=True)
        results["paths"] = user_paths.paths([BENCH.parent / "src"], args.path_rows, args.repeats)
    if "receiver" in parts:
        print(flush=True)
        results["receiver"] = receiver_speed.table_records(
            [BENCH.parent / "src"], args.receiver_sessions, args.repeats
        )
        # one table: the receiver's rows under every other path's
        user_paths._print(results.get("paths", []) + results["receiver"], args.repeats)
    (OUT / "results.json").write_text(json.dumps(results, indent=2))
    print(f"\nresults written to {OUT / 'results.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
