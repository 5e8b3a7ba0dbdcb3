"""CPU per failed tau-bench episode in ``state_match``: the first divergence, before and after.

A failed episode is a mutant of a tau-bench task's gold actions
(tests/episodes/tau_agents.py) that ``state_match`` scores 0 on tau-bench's
own airline or retail environment. Each is judged twice in this process:
with ``state_match`` as it is (two replays stepped side by side, compared by
:func:`~tooleval.environments.diff.same_key`, stopping at the first
divergence), and with the algorithm it replaced (both call lists replayed to
the end, the canonical text of the whole database written after every call;
``snapshot_divergence`` of tests/environments/test_first_divergence.py).
Both must report the same divergence; the figures are CPU seconds
(``time.process_time``) per failed episode, the whole ``state_match`` call.

    python bench/bench_episode_divergence.py [--tasks 10] [--domain airline,retail]
    python bench/bench_episode_divergence.py --domain retail --task 4   # 14 gold actions
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=10, help="the first N tasks of each domain")
    parser.add_argument("--domain", default="airline,retail")
    parser.add_argument("--task", type=int, action="append", help="these task indexes instead")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))  # the tests' mutants, tasks and the old algorithm
    from tests.conformance.tau_replay_reference import SOURCE
    from tests.conftest import SHARED_DATA
    from tests.environments.test_first_divergence import snapshot_divergence
    from tests.episodes.tau_agents import variants
    from tests.episodes.tau_conformance import tau_tasks

    from tooleval.environments import metric, state_match
    from tooleval.model import ToolCall
    from tooleval.serving.tau_bench import airline, retail

    factories = {"airline": airline, "retail": retail}
    current = metric._first_divergence
    print(f"load average at start: {os.getloadavg()[0]:.1f}", flush=True)
    for domain in args.domain.split(","):
        tasks = tau_tasks(SHARED_DATA, domain)
        if tasks is None:
            raise SystemExit(f"tau-bench's {domain} tasks not found under {SHARED_DATA}")

        def make(factory=factories[domain]):  # type: ignore[no-untyped-def]
            return factory({"source": str(SOURCE)})

        before: list[float] = []
        after: list[float] = []
        picked = [tasks[i] for i in args.task] if args.task else tasks[: args.tasks]
        for task in picked:
            gold = [(a["name"], a["kwargs"]) for a in task["actions"]]
            expected = [ToolCall(n, k) for n, k in gold]
            for kind, actions in variants(domain, gold).items():
                if kind == "oracle":
                    continue
                actual = [ToolCall(n, k) for n, k in actions]
                metric._first_divergence = current
                started = time.process_time()
                new = state_match(expected, actual, environment=make)
                after.append(time.process_time() - started)
                if new.score == 1.0:
                    after.pop()  # not a failed episode
                    continue
                metric._first_divergence = snapshot_divergence
                started = time.process_time()
                old = state_match(expected, actual, environment=make)
                before.append(time.process_time() - started)
                metric._first_divergence = current
                if old.diagnosis.details != new.diagnosis.details:
                    raise SystemExit(f"{domain} {kind}: the divergences differ")
        print(
            f"{domain}: {len(after)} failed episodes of tasks "
            f"{args.task or f'0-{args.tasks - 1}'}; "
            f"CPU s per failed episode: before {statistics.mean(before):.2f} "
            f"(max {max(before):.2f}), after {statistics.mean(after):.2f} "
            f"(max {max(after):.2f}), {statistics.mean(before) / statistics.mean(after):.1f}x",
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1:])
