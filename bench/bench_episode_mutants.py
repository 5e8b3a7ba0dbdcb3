"""The full mutant sweep: every tau-bench task, every kind of agent, every serving path, against tau-bench.

For each path (the ``openai`` tool loop, MCP over streamable HTTP, MCP over
stdio, the JSON tool endpoints) and domain (airline, retail), the oracle and
every mutant of the test-split tasks (tests/episodes/tau_agents.py) run
through ``tooleval run`` with tau-bench's environment served; each episode's
``state_match`` verdict is compared with tau-bench's own ``calculate_reward``
on the trajectory tooleval recorded (tests/episodes/tau_conformance.py). The
table gives, per path and kind, the episodes that agree over the episodes run,
and per path and domain the episodes per second of the run (wall time of
``run_plan``: binding, serving, recording, scoring, storing). tau-bench's
verdict of a trajectory is computed once and shared by every path.

``--tasks N`` runs each domain's first N tasks; ``--sample PATH=N`` runs only
every k-th task on that path so that about N tasks per domain run (a
stratified sample by task order, say for stdio, which starts a process per
episode). Needs /work/shared/data (or ``$TOOLEVAL_SHARED_DATA``)::

    python bench/bench_episode_mutants.py --path loop,mcp,http,stdio --sample stdio=10 \\
        --out bench/out/episode_mutants.md
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PATHS = ("loop", "mcp", "stdio", "http")


def _indexes(count: int, sample: int | None) -> list[int]:
    if sample is None or sample >= count:
        return list(range(count))
    step = count / sample
    return sorted({int(i * step) for i in range(sample)})


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", default="loop,mcp,http,stdio")
    parser.add_argument("--domain", default="airline,retail")
    parser.add_argument("--tasks", type=int, help="each domain's first N tasks")
    parser.add_argument("--sample", action="append", default=[], metavar="PATH=N")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--out", type=Path, help="also write the table (markdown) here")
    args = parser.parse_args(argv)
    paths = args.path.split(",")
    unknown = sorted(set(paths) - set(PATHS))
    if unknown:
        parser.error(f"--path: unknown {unknown[0]!r}; expected some of {', '.join(PATHS)}")
    samples: dict[str, int] = {}
    for item in args.sample:
        path, _, number = item.partition("=")
        if path not in PATHS or not number.isdigit():
            parser.error(f"--sample: expected PATH=N with PATH one of {PATHS}, got {item!r}")
        samples[path] = int(number)
    sys.path.insert(0, str(REPO))  # the tests' scripted agents and tau-bench's reward
    from tests.conftest import SHARED_DATA
    from tests.episodes.tau_conformance import (
        KINDS,
        compare_with_tau,
        run_episodes,
        tau_episodes,
        tau_tasks,
    )

    references: dict[str, bool] = {}
    lines = [
        f"load average at start: {os.getloadavg()[0]:.1f}; concurrency {args.concurrency}",
        "",
        "| path | domain | tasks | " + " | ".join(KINDS) + " | all | episodes/s |",
        "|---" * (len(KINDS) + 5) + "|",
    ]
    print("\n".join(lines), flush=True)
    explained: list[str] = []
    for path in paths:
        for domain in args.domain.split(","):
            tasks = tau_tasks(SHARED_DATA, domain)
            if tasks is None:
                raise SystemExit(f"tau-bench's {domain} tasks not found under {SHARED_DATA}")
            count = len(tasks) if args.tasks is None else min(args.tasks, len(tasks))
            indexes = _indexes(count, samples.get(path))
            episodes = tau_episodes(domain, tasks, indexes)
            with tempfile.TemporaryDirectory() as folder:
                started = time.perf_counter()
                rows = run_episodes(
                    Path(folder), domain, path, episodes, concurrency=args.concurrency
                )
                took = time.perf_counter() - started
            agreement = compare_with_tau(domain, path, episodes, rows, references)
            total = Counter(tag.rsplit("-", 1)[1] for tag in episodes)
            wrong = Counter(tag.rsplit("-", 1)[1] for tag, *_ in agreement.disagree)
            for problem in agreement.problems:
                wrong[problem.split(":", 1)[0].rsplit("-", 1)[-1]] += 1
            cells = [f"{total[k] - wrong[k]}/{total[k]}" for k in KINDS]
            agreed = len(episodes) - sum(wrong.values())
            line = (
                f"| {path} | {domain} | {len(indexes)} | {' | '.join(cells)} | "
                f"{agreed}/{len(episodes)} | {len(episodes) / took:.2f} |"
            )
            lines.append(line)
            print(line, flush=True)
            for item in [*agreement.disagree, *agreement.problems, *agreement.oracle_failed]:
                explained.append(f"{path} {domain}: {item}")
                print(f"  {item}", flush=True)
            if args.out is not None:
                args.out.parent.mkdir(parents=True, exist_ok=True)
                args.out.write_text("\n".join([*lines, "", *explained]) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
