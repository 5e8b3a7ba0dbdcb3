"""Replays per second: BFCL multi-turn entries and tau-bench rewards (prints numbers, never asserts).

1. BFCL multi-turn: every public ``multi_turn_base`` result of ../shared/data
   (glyphh-ada-1.1, function calling), then the ground truth of each
   category replayed as a model result (``long_context`` loads its long
   scenarios): entries per second, each entry = model and reference
   instances set up, every turn executed and checked.
2. tau-bench: the 200 runs of ``gpt-4o-airline.json`` replayed on the
   airline tools and data from ../shared/data/tau_bench/source: runs per
   second, each run = fresh data, the agent's actions, the canonical hash of
   the data (the gold state cached per task, as it is the same for every
   trial), then again with tau-bench's own text hash of the gold state.

    python bench/bench_replay.py [--shared DIR] [--categories a,b]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.conformance.bfcl_multi_turn_reference import load_multi_turn, mutate  # noqa: E402

from tooleval.benchmarks.bfcl.multi_turn import MULTI_TURN_CATEGORIES, check_entry  # noqa: E402
from tooleval.benchmarks.bfcl.multi_turn_env import api_version  # noqa: E402
from tooleval.benchmarks.tau_bench import replay as tau_replay  # noqa: E402
from tooleval.benchmarks.tau_bench.replay_source import load_domain  # noqa: E402


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _rate(label: str, count: int, seconds: float) -> None:
    cpu = os.times()
    print(
        f"{label:<46} {count:>5} in {seconds:7.2f} s  {count / seconds:8.1f}/s  (load {os.getloadavg()[0]:.1f}, cpu {cpu.user:.0f} s)"
    )


def bench_bfcl(shared: Path, categories: list[str]) -> None:
    root = shared / "bfcl"
    questions = {e["id"]: e for e in _jsonl(root / "data" / "BFCL_v4_multi_turn_base.json")}
    answers = {
        e["id"]: e["ground_truth"]
        for e in _jsonl(root / "possible_answer" / "BFCL_v4_multi_turn_base.json")
    }
    results = _jsonl(root / "results" / "glyphh-ada-1.1" / "BFCL_v4_multi_turn_base_result.json")
    started = time.perf_counter()
    for row in results:
        check_entry(questions[row["id"]], answers[row["id"]], row["result"], mode="fc")
    _rate("bfcl multi_turn_base, glyphh results", len(results), time.perf_counter() - started)
    for category in categories:
        pairs = [
            (e, gt, mutate(gt, "exact", i)[0])
            for i, (e, gt) in enumerate(load_multi_turn(category))
        ]
        started = time.perf_counter()
        for entry, truth, result in pairs:
            check_entry(entry, truth, result, mode="fc")
        _rate(f"bfcl {category}, ground truth as result", len(pairs), time.perf_counter() - started)


def bench_tau(shared: Path) -> None:
    source = shared / "tau_bench" / "source"
    started = time.perf_counter()
    domain = load_domain("airline", source)
    print(
        f"tau-bench airline tools and data loaded in {time.perf_counter() - started:.2f} s ({domain.version})"
    )
    runs = json.loads((shared / "tau_bench" / "trajectories" / "gpt-4o-airline.json").read_text())
    for tau_hash in (False, True):
        started = time.perf_counter()
        for run in runs:
            task = run["info"]["task"]
            actions, done = tau_replay.actions_from_messages(run["traj"])
            gold = [tau_replay.Action(a["name"], a["kwargs"]) for a in task["actions"]]
            tau_replay.replay_reward(
                domain, gold, task.get("outputs", []), actions, done=done, tau_hash=tau_hash
            )
        label = "tau-bench airline runs" + (", tau-bench's gold hash" if tau_hash else "")
        _rate(label, len(runs), time.perf_counter() - started)
        tau_replay._gold_cache.clear()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--shared",
        type=Path,
        default=Path(os.environ.get("TOOLEVAL_SHARED_DATA") or ROOT.parent / "shared" / "data"),
    )
    parser.add_argument("--categories", default=",".join(MULTI_TURN_CATEGORIES))
    args = parser.parse_args()
    print(f"bfcl-eval {api_version()}; python {sys.version.split()[0]}; {os.cpu_count()} CPUs")
    bench_bfcl(args.shared, [c for c in args.categories.split(",") if c])
    bench_tau(args.shared)


if __name__ == "__main__":
    main()
