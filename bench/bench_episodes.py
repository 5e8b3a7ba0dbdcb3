"""Episodes per second: a model put into an environment over the served tool loop.

The model is examples/episodes/model_server.py (a scripted OpenAI-compatible
server in its own process, answering at once); the environment is the orders
environment of examples/orders_env; each row is one episode (one to two tool
calls, two to three model requests), run by ``run_plan`` into SQLite with
``state_match`` on the end state. Prints episodes per second for the run
(episodes, scoring and storing included) at the given concurrency.

    python bench/bench_episodes.py --rows 400 --concurrency 8
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "episodes"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=400)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args(argv)
    from tooleval.runs import plan_from_dict, run_plan
    from tooleval.store import open_store

    cases = (REPO / "examples" / "orders_env" / "cases.jsonl").read_text().splitlines()
    server = subprocess.Popen(
        [sys.executable, str(EXAMPLE / "model_server.py"), "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline().split()[-1])
        with tempfile.TemporaryDirectory() as folder:
            base = Path(folder)
            rows = []
            for i in range(args.rows):
                row = json.loads(cases[i % len(cases)])
                row["id"] = f"{row['id']}-{i}"
                rows.append(json.dumps(row))
            (base / "rows.jsonl").write_text("\n".join(rows) + "\n")
            plan = plan_from_dict(
                {
                    "dataset": "rows.jsonl",
                    "connector": {
                        "type": "openai",
                        "base_url": f"http://127.0.0.1:{port}/v1",
                        "model": "scripted",
                    },
                    "environment": f"{REPO / 'examples' / 'orders_env' / 'orders.py'}:make_environment",
                    "metrics": ["state_match"],
                },
                base_dir=base,
            )
            with open_store(base / "runs.db") as store:
                started = time.perf_counter()
                run_plan(plan, store=store, concurrency=args.concurrency)
                took = time.perf_counter() - started
        print(
            f"{args.rows} episodes in {took:.2f} s: {args.rows / took:.1f} episodes/s "
            f"(concurrency {args.concurrency})"
        )
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main(sys.argv[1:])
