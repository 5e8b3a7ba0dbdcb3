"""The compiled kernel: `tooleval score` end to end vs a ragas script, vs a bare parse.

Sections (results printed and saved to bench/out/kernel_score.json):

* ``e2e``: on the same two-call rows (``--rows``, default 100,000), wall and
  CPU time and max RSS of ``tooleval score --metric tool_call_accuracy``
  (compiled kernel: default threads, ``--workers 1``, ``--workers 2``), the same with
  ``TOOLEVAL_NO_KERNEL=1`` (pure Python), and ``bench/ragas_script.py`` (a
  ragas user's end-to-end script); each a fresh process, the best CPU of
  ``--repeat`` (every run's CPU and the load average printed beside it);
  then both tools on a 3-row file (start-up: interpreter and imports).
* ``instructions``: the load-independent count: the crate built with symbols
  (``cargo build --release``, ``line-tables-only`` debug info, into ``bench/out/kernel-symbols``),
  ``Kernel.score_block`` on the first ``--callgrind-rows`` rows (10,000) on one thread under
  ``valgrind --tool=callgrind``, instructions per row in all and split as docs/performance.md
  shows them (parse, reading the row, scoring, the result line, the argument checks, freeing).
* ``parse``: on a large file (``--big-rows``, default 1,000,000), in one process:
  a bare ``orjson.loads`` of every line vs the kernel's ``score_block`` (one
  thread, then ``--threads``), per row; then ``tooleval score --workers 1``,
  ``tooleval score`` (default threads) and ``taskset -c 0 tooleval score
  --workers 1`` (one core for the whole process) on that file as processes
  (wall and CPU time, max RSS).

    python bench/kernel_score.py                      # both sections
    python bench/kernel_score.py --only e2e --rows 20000
    python bench/kernel_score.py --only e2e --tooleval /tmp/venv/bin/python   # an installed wheel
    python bench/kernel_score.py --only instructions   # callgrind: needs cargo and valgrind

``--tooleval PYTHON`` runs ``tooleval score`` (and the bare ``orjson.loads``
loop the e2e section also times) with another interpreter, e.g. a fresh venv
that installed the wheel ``make dist`` built; the ragas script stays in this
venv (``.venv``, the ``ragas-compat-test`` extra).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
OUT = BENCH / "out"
sys.path.insert(0, str(BENCH))

from gen_rows import write_rows  # noqa: E402

TOOLEVAL = [sys.executable, "-m", "tooleval.cli.main"]
# a bare parse of the same file in a process of its own: the floor `tooleval score` is held to
BARE_LOOP = "import sys, orjson\nfor line in open(sys.argv[1], 'rb'):\n    orjson.loads(line)\n"


def rows_file(n_rows: int) -> Path:
    path = OUT / f"rows_{n_rows}_2.jsonl"
    if not path.exists():
        OUT.mkdir(parents=True, exist_ok=True)
        write_rows(path, n_rows, [2])
    return path


def run(command: list[str], *, env: dict[str, str] | None = None) -> dict[str, float]:
    """Wall seconds and max RSS (MB) of one process."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command, env={**os.environ, **(env or {})}, stdout=subprocess.DEVNULL, cwd=ROOT
    )
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(command)}")
    return {
        "seconds": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "rss_mb": usage.ru_maxrss / 1024,
    }


def score_command(path: Path, *extra: str) -> list[str]:
    out = OUT / "kernel_score_out.jsonl"
    return [*TOOLEVAL, "score", str(path), "--metric", "tool_call_accuracy", "-o", str(out), *extra]


def e2e(n_rows: int, repeat: int, skip_python: bool = False) -> list[dict[str, Any]]:
    path = rows_file(n_rows)
    tiny = OUT / "rows_3_2.jsonl"
    with path.open("rb") as rows:
        tiny.write_bytes(rows.readline() * 3)
    ragas_out = OUT / "ragas_script_out.jsonl"

    def ragas(source: Path) -> list[str]:
        return [sys.executable, str(BENCH / "ragas_script.py"), str(source), str(ragas_out)]

    variants = [
        (
            "tooleval score (compiled kernel, default threads: the idle CPUs)",
            score_command(path),
            None,
        ),
        (
            "tooleval score --workers 1 (compiled kernel, one thread)",
            score_command(path, "--workers", "1"),
            None,
        ),
        (
            "tooleval score --workers 2 (compiled kernel, two scoring threads)",
            score_command(path, "--workers", "2"),
            None,
        ),
        ("tooleval score (pure Python)", score_command(path), {"TOOLEVAL_NO_KERNEL": "1"}),
        ("ragas end-to-end script", ragas(path), None),
        ("bare orjson.loads loop", [TOOLEVAL[0], "-c", BARE_LOOP, str(path)], None),
        ("start-up: tooleval score on 3 rows", score_command(tiny), None),
        ("start-up: ragas script on 3 rows", ragas(tiny), None),
    ]
    if skip_python:
        variants = [v for v in variants if v[2] is None]
    # The variants take turns (round 1 runs each once, then round 2, ...), so a slow minute of
    # the machine falls on every variant rather than on one; before each run the previous
    # run's output is deleted, so no run pays for freeing another's 231 MB of pages.
    tried: dict[str, list[dict[str, float]]] = {label: [] for label, _, _ in variants}
    loads: dict[str, float] = {}
    for round_number in range(repeat):
        for label, command, env in variants:
            if env and round_number:  # the pure-Python run once: it is the slow reference
                continue
            loads.setdefault(label, os.getloadavg()[0])
            for stale in (OUT / "kernel_score_out.jsonl", ragas_out):
                stale.unlink(missing_ok=True)
            tried[label].append(run(command, env=env))
    results = []
    for label, _, _ in variants:
        found: dict[str, Any] = dict(min(tried[label], key=lambda r: r["cpu"]))  # best CPU
        rows = 3 if "3 rows" in label else n_rows
        found.update(
            section="e2e",
            label=label,
            rows=rows,
            rows_per_s=rows / found["seconds"],
            load=loads[label],
            cpu_runs=[r["cpu"] for r in tried[label]],
        )
        results.append(found)
        print(
            f"{label}: {found['seconds']:.2f} s wall, {found['cpu']:.2f} s CPU "
            f"(runs: {', '.join(f'{r:.2f}' for r in found['cpu_runs'])}), "
            f"{found['rows_per_s']:,.0f} rows/s, {found['rss_mb']:.0f} MB, load {found['load']:.1f}",
            flush=True,
        )
    by_label = {r["label"]: r for r in results}
    script = by_label["ragas end-to-end script"]
    bare = by_label["bare orjson.loads loop"]
    for label in [v[0] for v in variants if v[0].startswith("tooleval score")]:
        mine = by_label[label]
        print(
            f"  ragas script / {label}: {script['seconds'] / mine['seconds']:.2f}x wall, "
            f"{script['cpu'] / mine['cpu']:.2f}x CPU; {label} / bare parse: "
            f"{mine['seconds'] / bare['seconds']:.2f}x wall, {mine['cpu'] / bare['cpu']:.2f}x CPU",
            flush=True,
        )
    return results


# what docs/performance.md splits a row's instructions into: label -> callgrind function name
SPLIT = {
    "whole row": "_kernel::score_into",
    "JSON parse": "_kernel::json::parse",
    "reading the row": "_kernel::rows::read_row",
    "scoring": "_kernel::metrics::score_row",
    "the result line": "_kernel::result::finish",
    "the argument checks written": "_kernel::result::check_json",
    "pairing": "_kernel::alignment::analyse",
    "freeing the row": "core::ptr::drop_in_place<_kernel::metrics::Row>",
}
HARNESS = """
import importlib.machinery, importlib.util, sys
so, path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
loader = importlib.machinery.ExtensionFileLoader("tooleval._kernel", so)
spec = importlib.util.spec_from_file_location("tooleval._kernel", so, loader=loader)
module = importlib.util.module_from_spec(spec)
loader.exec_module(module)
from tooleval.metrics import bind
from tooleval.metrics.engine import _kernel_for
kernel = _kernel_for(bind("tool_call_accuracy"), module)
with open(path, "rb") as f:
    data = b"".join(f.readline() for _ in range(n))
assert not any(isinstance(p, tuple) for p in kernel.score_block(data, 1, 1))
"""


def instructions(n_rows: int) -> list[dict[str, Any]]:
    for tool in ("cargo", "valgrind", "callgrind_annotate"):
        if shutil.which(tool) is None:
            raise SystemExit(f"the instruction count needs {tool} on PATH")
    target = OUT / "kernel-symbols"
    env = {
        **os.environ,
        "CARGO_TARGET_DIR": str(target),
        "CARGO_PROFILE_RELEASE_DEBUG": "line-tables-only",
        "CARGO_PROFILE_RELEASE_STRIP": "none",
        "PYO3_PYTHON": sys.executable,
    }
    subprocess.run(
        ["cargo", "build", "--release", "--locked", "--features", "pyo3/extension-module"],
        cwd=ROOT / "kernel",
        env=env,
        check=True,
    )
    so = target / "release" / "lib_kernel.so"
    profile = OUT / "kernel_score.callgrind"
    harness = [sys.executable, "-c", HARNESS, str(so), str(rows_file(100_000)), str(n_rows)]
    subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={profile}",
            "--toggle-collect=*score_part*",
            *harness,
        ],
        check=True,
        capture_output=True,
    )
    annotated = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(profile)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    counts: dict[str, int] = {}
    for line in annotated.splitlines():
        count, _, rest = line.strip().partition(" ")
        for label, name in SPLIT.items():
            if label not in counts and (f":{name} [" in rest or rest.endswith(f":{name}")):
                counts[label] = int(count.replace(",", ""))
    results = []
    for label in SPLIT:
        per_row = counts.get(label, 0) / n_rows
        results.append({"section": "instructions", "label": label, "per_row": per_row})
        print(f"{label}: {per_row / 1000:.1f}k instructions per row", flush=True)
    return results


def _best(fn: Any, tries: int = 3) -> tuple[float, float]:
    """Best wall time and best CPU time (all threads) of ``tries`` runs."""
    walls, cpus = [], []
    for _ in range(tries):
        started, cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


def parse(n_rows: int, threads: int) -> list[dict[str, Any]]:
    from tooleval.metrics import bind
    from tooleval.metrics.engine import fastest_engine

    path = rows_file(n_rows)
    kernel = fastest_engine(bind("tool_call_accuracy")).kernel
    if kernel is None:
        raise SystemExit("the compiled kernel is not built (make kernel)")
    block = 1 << 20

    def blocks() -> Any:
        with path.open("rb") as file:
            start, rest = 1, b""
            while chunk := file.read(block):
                chunk = rest + chunk
                cut = chunk.rfind(b"\n") + 1
                data, rest = chunk[:cut], chunk[cut:]
                yield start, data
                start += data.count(b"\n")
            if rest:
                yield start, rest

    def bare() -> None:
        loads = orjson.loads
        with path.open("rb") as file:
            for line in file:
                loads(line)

    def scored(n_threads: int) -> None:
        for start, data in blocks():
            kernel.score_block(data, start, n_threads)

    results = []
    t_parse, c_parse = _best(bare, 2)
    for label, fn in [
        ("bare orjson.loads per line", bare),
        ("kernel score_block, 1 thread", lambda: scored(1)),
        (f"kernel score_block, {threads} threads", lambda: scored(threads)),
    ]:
        seconds, cpu = (t_parse, c_parse) if fn is bare else _best(fn, 2)
        found = {
            "section": "parse",
            "label": label,
            "rows": n_rows,
            "seconds": seconds,
            "cpu": cpu,
            "us_per_row": seconds / n_rows * 1e6,
            "cpu_us_per_row": cpu / n_rows * 1e6,
            "ratio_to_parse": seconds / t_parse,
            "cpu_ratio_to_parse": cpu / c_parse,
        }
        results.append(found)
        print(
            f"{label}: {found['us_per_row']:.2f} us/row wall ({found['ratio_to_parse']:.2f}x parse), "
            f"{found['cpu_us_per_row']:.2f} us/row CPU ({found['cpu_ratio_to_parse']:.2f}x parse)",
            flush=True,
        )
    one_core = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    for pin, extra in ([[], ["--workers", "1"]], [[], []], [one_core, ["--workers", "1"]]):
        if pin is one_core and not one_core:
            continue
        found = run([*pin, *score_command(path, *extra)])
        found.update(
            section="parse",
            label=" ".join(
                [*pin, "tooleval score", *extra] if extra else ["tooleval score (default threads)"]
            )
            + (" (the whole process on one core)" if pin else ""),
            rows=n_rows,
            rows_per_s=n_rows / found["seconds"],
            ratio_to_parse=found["seconds"] / t_parse,
            cpu_ratio_to_parse=found["cpu"] / c_parse,
        )
        results.append(found)
        print(
            f"{found['label']}: {found['seconds']:.2f} s, {found['rows_per_s']:,.0f} rows/s, "
            f"{found['ratio_to_parse']:.2f}x parse wall, {found['cpu_ratio_to_parse']:.2f}x parse CPU, "
            f"{found['rss_mb']:.0f} MB",
            flush=True,
        )
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=["e2e", "parse", "instructions"])
    parser.add_argument("--callgrind-rows", type=int, default=10_000)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--big-rows", type=int, default=1_000_000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--skip-python",
        action="store_true",
        help="e2e without the pure-Python run (the slow reference, minutes under load)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per e2e variant (best kept)")
    parser.add_argument(
        "--tooleval", type=Path, help="the Python whose installed tooleval is measured"
    )
    args = parser.parse_args()
    if args.tooleval is not None:
        TOOLEVAL[:] = [str(args.tooleval), "-m", "tooleval"]
    machine = {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "load_before": os.getloadavg(),
        "tooleval": " ".join(TOOLEVAL),
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    print(f"machine: {machine}", flush=True)
    results: list[dict[str, Any]] = []
    if args.only in (None, "e2e"):
        results += e2e(args.rows, args.repeat, args.skip_python)
    if args.only in (None, "parse"):
        results += parse(args.big_rows, args.threads)
    if args.only == "instructions":  # minutes under valgrind: only when asked
        results += instructions(args.callgrind_rows)
    machine["load_after"] = os.getloadavg()
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "kernel_score.json").write_text(
        json.dumps({"machine": machine, "results": results}, indent=1)
    )
    print(f"load average after: {machine['load_after']}")


if __name__ == "__main__":
    main()
