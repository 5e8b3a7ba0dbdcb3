"""Every path a user takes, timed against its reference in one run (``run_all.py --only paths``).

Each path and each reference runs in its own process; the figures are CPU
seconds (user + sys of that process, from ``getrusage``), wall seconds and
the load average at the start, the minimum of ``--repeats`` runs. A path
whose tool or data is missing is shown as skipped with the reason.

``--src DIR`` (repeatable) runs the tooleval paths with ``DIR`` first on
``sys.path``, so two versions of the sources (``git archive`` of an older
commit into /tmp, say) are measured side by side in one run.

    python bench/paths.py [--rows N] [--repeats 3] [--src src --src /tmp/old/src]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
OUT = BENCH / "out"
PYTHON = ROOT / ".venv" / "bin" / "python"
SHARED = Path(os.environ.get("TOOLEVAL_SHARED_DATA") or ROOT.parent / "shared" / "data")
BFCL_AST = (
    "simple_python",
    "multiple",
    "parallel",
    "parallel_multiple",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
)

# In-process loops whose own CPU is the figure (printed as "rows cpu_seconds").
_TAU_REPLAY = """
import json, sys, time
from tooleval.benchmarks.tau_bench import replay as R
from tooleval.benchmarks.tau_bench.replay_source import load_domain
shared = sys.argv[1]
domain = load_domain("airline", shared + "/tau_bench/source")
runs = json.load(open(shared + "/tau_bench/trajectories/gpt-4o-airline.json"))
started = time.process_time()
for run in runs:
    task = run["info"]["task"]
    actions, done = R.actions_from_messages(run["traj"])
    gold = [R.Action(a["name"], a["kwargs"]) for a in task["actions"]]
    R.replay_reward(domain, gold, task.get("outputs", []), actions, done=done)
print(len(runs), time.process_time() - started)
"""
_BFCL_REFERENCE = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from tests.conformance.bfcl_reference import load_bfcl, _fc_decode
bfcl = load_bfcl()
if bfcl is None:
    raise SystemExit("bfcl-eval is not installed")
data, results = sys.argv[2], sys.argv[3]
def rows(path):
    return [json.loads(line) for line in open(path) if line.strip()]
cases = []
for category in sys.argv[4].split(","):
    name = f"BFCL_v4_{category}.json"
    questions = {r["id"]: r for r in rows(f"{data}/data/{name}")}
    answers = {r["id"]: r for r in rows(f"{data}/possible_answer/{name}")}
    for r in rows(f"{results}/BFCL_v4_{category}_result.json"):
        cases.append((category, questions[r["id"]]["function"], answers[r["id"]]["ground_truth"], r["result"]))
started = time.process_time()
for category, functions, truth, result in cases:
    try:
        decoded = _fc_decode(result)
    except Exception:
        continue
    if bfcl.is_call_list(decoded):
        bfcl.ast_checker(functions, decoded, truth, bfcl.Language.PYTHON, category, "tooleval-dots")
print(len(cases), time.process_time() - started)
"""
_EVALUATE = """
import sys, time
import tooleval
result = tooleval.evaluate(sys.argv[1], "tool_call_accuracy")
print(sys.argv[2], time.process_time())
"""
_ORJSON_LOOP = """
import sys, time, orjson
n = 0
with open(sys.argv[1], "rb") as f:
    for line in f:
        orjson.loads(line); n += 1
print(n, time.process_time())
"""


@dataclass
class Timing:
    cpu: float
    wall: float
    load: float
    rows: int
    inner_cpu: float | None = None  # the process's own figure for its loop, when it prints one
    error: str | None = None

    @property
    def rate(self) -> float | None:
        cpu = self.inner_cpu if self.inner_cpu is not None else self.cpu
        return self.rows / cpu if cpu and self.rows else None


def _run(command: list[str], rows: int, env: dict[str, str], repeats: int) -> Timing:
    best: Timing | None = None
    for _ in range(repeats):
        load = os.getloadavg()[0]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=3600)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if done.returncode not in (0, 1):
            lines = (done.stderr or done.stdout).strip().splitlines()
            return Timing(cpu, wall, load, rows, error=lines[-1] if lines else "failed")
        inner = None
        last = done.stdout.strip().splitlines()[-1:] if done.stdout.strip() else []
        parts = last[0].split() if last else []
        if len(parts) == 2 and parts[0].isdigit():
            try:
                rows, inner = int(parts[0]), float(parts[1])
            except ValueError:
                inner = None
        timing = Timing(cpu, wall, load, rows, inner)
        if best is None or timing.cpu < best.cpu:
            best = timing
    assert best is not None
    return best


def _env(src: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(src))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # compiled once, as an installed package is
    return env


def _bfcl_folder() -> Path | None:
    source = SHARED / "bfcl" / "results" / "glyphh-ada-1.1"
    if not source.is_dir():
        return None
    folder = OUT / "bfcl_ast" / "glyphh-ada-1.1"  # the Python AST categories only
    folder.mkdir(parents=True, exist_ok=True)
    for category in BFCL_AST:
        link = folder / f"BFCL_v4_{category}_result.json"
        if not link.exists():
            link.symlink_to(source / link.name)
    return folder


def paths(sources: list[Path], n_rows: int, repeats: int) -> list[dict]:
    sys.path.insert(0, str(BENCH))
    from gen_rows import write_rows

    OUT.mkdir(parents=True, exist_ok=True)
    rows_file = OUT / f"rows_paths_{n_rows}.jsonl"
    if not rows_file.exists():
        write_rows(rows_file, n_rows, [2], seed=7)
    tool = str(ROOT / ".venv" / "bin" / "tooleval")
    out = str(OUT / "paths_out.jsonl")
    python = str(PYTHON)
    bfcl = _bfcl_folder()
    tau = SHARED / "tau_bench" / "trajectories" / "gpt-4o-airline.json"
    one = [tool, "score", str(rows_file), "--metric", "tool_call_accuracy", "-o", out]
    two = [*one[:-2], "--metric", "tool_call_f1", "-o", out]
    three = [*two[:-2], "--metric", "tool_correctness", "-o", out]
    compact = ["--fields", "compact"]
    plan: list[tuple[str, list[str], int, bool, str | None]] = [
        # (label, command, rows, runs tooleval's sources, why skipped)
        (f"score {n_rows:,} rows, 1 metric", one, n_rows, True, None),
        (f"score {n_rows:,} rows, 2 metrics", two, n_rows, True, None),
        (f"score {n_rows:,} rows, 2 metrics + --table", [*two, "--table"], n_rows, True, None),
        # the output sized to its use: the full line (default) against compact lines
        (
            f"score {n_rows:,} rows, 1 metric, --fields compact",
            [*one, *compact],
            n_rows,
            True,
            None,
        ),
        (f"score {n_rows:,} rows, 3 metrics", three, n_rows, True, None),
        (
            f"score {n_rows:,} rows, 3 metrics, --fields compact",
            [*three, *compact],
            n_rows,
            True,
            None,
        ),
        (
            f"evaluate(path) {n_rows:,} rows",
            [python, "-c", _EVALUATE, str(rows_file), str(n_rows)],
            n_rows,
            True,
            None,
        ),
        (
            f"ref: orjson.loads loop {n_rows:,} rows",
            [python, "-c", _ORJSON_LOOP, str(rows_file)],
            n_rows,
            False,
            None,
        ),
        (
            "tau-bench replay, 200 airline runs (loop)",
            [python, "-c", _TAU_REPLAY, str(SHARED)],
            200,
            True,
            None if tau.is_file() else f"no {tau}",
        ),
        (
            "tau-bench score --format tau-bench --data",
            [tool, "score", str(tau), "--format", "tau-bench"]
            + ["--data", str(SHARED / "tau_bench" / "source"), "-o", out],
            200,
            True,
            None if tau.is_file() else f"no {tau}",
        ),
        (
            "ref: tau-bench calls-only grading (tau_bench_actions)",
            [tool, "score", str(tau), "--format", "tau-bench", "--metric", "tau_bench_actions"]
            + ["-o", out],
            200,
            True,
            None if tau.is_file() else f"no {tau}",
        ),
        (
            "BFCL AST 2,351 rows, score --format bfcl",
            [tool, "score", str(bfcl), "--format", "bfcl", "--data", str(SHARED / "bfcl")]
            + ["-o", out],
            2351,
            True,
            None if bfcl else "no BFCL results in the shared data",
        ),
        (
            "ref: BFCL's own ast_checker, in process (loop)",
            [python, "-c", _BFCL_REFERENCE, str(ROOT), str(SHARED / "bfcl"), str(bfcl)]
            + [",".join(BFCL_AST)],
            2351,
            False,
            None if bfcl else "no BFCL results in the shared data",
        ),
    ]
    records = []
    for label, command, rows, ours, skipped in plan:
        for src in sources if ours else sources[:1]:
            name = f"{label} [{src}]" if ours and len(sources) > 1 else label
            if skipped:
                records.append({"path": name, "skipped": skipped})
                continue
            print(f"[paths] {name} ...", flush=True)
            timing = _run(command, rows, _env(src), repeats)
            records.append({"path": name, **timing.__dict__, "rows_per_cpu_s": timing.rate})
    _print(records, repeats)
    return records


def _print(records: list[dict], repeats: int) -> None:
    width = max(len(r["path"]) for r in records)
    print(f"\nevery path and its reference (CPU s = user+sys of the process, min of {repeats})")
    print(
        f"  {'path':<{width}} {'CPU s':>7} {'loop s':>7} {'wall s':>7} {'load':>5} {'rows/CPU-s':>11}"
    )
    for r in records:
        if "skipped" in r:
            print(f"  {r['path']:<{width}} skipped: {r['skipped']}")
        elif r.get("error"):
            print(f"  {r['path']:<{width}} ERROR: {r['error']}")
        else:
            inner = f"{r['inner_cpu']:.2f}" if r["inner_cpu"] is not None else "-"
            rate = f"{r['rows_per_cpu_s']:,.0f}" if r["rows_per_cpu_s"] else "-"
            print(
                f"  {r['path']:<{width}} {r['cpu']:>7.2f} {inner:>7} {r['wall']:>7.2f} "
                f"{r['load']:>5.1f} {rate:>11}"
            )
    print(
        "  (rows/CPU-s uses the loop's own CPU when the process prints it, else the whole process)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--src", action="append", type=Path, default=None)
    args = parser.parse_args(argv)
    records = paths(args.src or [ROOT / "src"], args.rows, args.repeats)
    (OUT / "paths.json").write_text(json.dumps(records, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
