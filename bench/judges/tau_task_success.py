"""The local judge's task_success against tau-bench's own rewards: throughput and agreement.

    python bench/judges/tau_task_success.py --rows 24            # the bundled SmolLM2-135M
    python bench/judges/tau_task_success.py --base-url http://127.0.0.1:8080/v1 --model qwen

The labels are nobody's here: tau-bench's reward of each historical trajectory
(``gpt-4o-airline.json``, sierra-research/tau-bench, MIT; 1.0: the database
ended in the task's goal state, 0.0: it did not). The file is read from
``../shared/data/tau_bench`` (or ``$TOOLEVAL_SHARED_DATA``), never copied. A
seeded, reward-balanced sample of ``--rows`` trajectories is judged with
``task_success``; the report gives the parse rate, the confusion matrix,
agreement, Cohen's kappa, TPR/TNR with Wilson intervals, and the judge's
throughput (rows per minute, tokens per second in and out).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("TOOLEVAL_SHARED_DATA") or ROOT.parent / "shared" / "data")
TRAJECTORIES = DATA / "tau_bench" / "trajectories" / "gpt-4o-airline.json"


def sample_rows(count: int, seed: int) -> list[tuple[str, list, bool]]:
    runs = json.loads(TRAJECTORIES.read_text(encoding="utf-8"))
    passed = [r for r in runs if r.get("reward") == 1.0]
    failed = [r for r in runs if r.get("reward") == 0.0]
    rng = random.Random(seed)
    chosen = rng.sample(passed, count // 2) + rng.sample(failed, count - count // 2)
    rng.shuffle(chosen)
    return [
        (f"task{r['task_id']}-trial{r.get('trial', 0)}", r["traj"], r["reward"] == 1.0)
        for r in chosen
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=24)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--max-new-tokens", type=int, default=128)
    parser.add_argument("--max-chars", type=int, default=2000)
    parser.add_argument("--base-url")
    parser.add_argument("--model")
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()
    if not TRAJECTORIES.is_file():
        print(f"tau-bench trajectories not found at {TRAJECTORIES}; set TOOLEVAL_SHARED_DATA")
        return 2
    from tooleval.errors import JudgeError
    from tooleval.formats import sample_from_row
    from tooleval.judged import task_success
    from tooleval.llm import LocalJudge, OpenAIJudge
    from tooleval.model import Result
    from tooleval.stats.calibration import calibration_figures, confusion

    if args.base_url:
        judge = OpenAIJudge(args.model, base_url=args.base_url, api_key="none", cache=False)
        load = 0.0
    else:
        judge = LocalJudge(max_new_tokens=args.max_new_tokens, cache=False).load()
        load = judge.load_seconds or 0.0
    truth, verdicts, rows = [], [], []
    unscored = 0
    started = time.perf_counter()
    for row_id, traj, label in sample_rows(args.rows, args.seed):
        sample = sample_from_row({"id": row_id, "messages": traj})
        t0 = time.perf_counter()
        try:
            result = task_success(sample, judge=judge, max_chars=args.max_chars)
        except JudgeError as exc:  # e.g. a prompt longer than the model's context
            result = Result.unscored("task_success", f"judge error: {exc}")
        seconds = time.perf_counter() - t0
        usage = result.diagnosis.details.get("judge", {}) if result.diagnosis else {}
        rows.append(
            {
                "row": row_id,
                "reward": label,
                "verdict": result.passed,
                "seconds": round(seconds, 2),
                "tokens_in": usage.get("tokens_in"),
                "tokens_out": usage.get("tokens_out"),
                "calls": usage.get("calls"),
                "reason": result.reason[:160],
            }
        )
        print(json.dumps(rows[-1]), flush=True)
        if result.passed is None:
            unscored += 1
            continue
        truth.append(label)
        verdicts.append(bool(result.passed))
    elapsed = time.perf_counter() - started
    figures = calibration_figures(confusion(truth, verdicts))
    tokens_in = sum(r["tokens_in"] or 0 for r in rows)
    tokens_out = sum(r["tokens_out"] or 0 for r in rows)
    report = {
        "judge": judge.describe(),
        "rows": len(rows),
        "parsed": len(rows) - unscored,
        "load_seconds": round(load, 1),
        "seconds": round(elapsed, 1),
        "rows_per_minute": round(60 * len(rows) / elapsed, 2),
        "tokens_in_per_second": round(tokens_in / elapsed, 1),
        "tokens_out_per_second": round(tokens_out / elapsed, 1),
        "load_average": os.getloadavg(),
        **figures,
    }
    print(json.dumps(report, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps({**report, "per_row": rows}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
