"""A judge on each shipped calibration set: parse rate, agreement, kappa and throughput.

    python bench/judges/calibration_sets.py --rows 10                   # the bundled SmolLM2-135M
    python bench/judges/calibration_sets.py --base-url http://127.0.0.1:8080/v1 --model qwen

Each set (``tooleval judge calibrate --set``: tau-airline, tau2-airline,
bfcl-tools-error; labels from tau-bench's and tau2's rewards and BFCL's own
checker) is sampled (seeded, label-balanced, ``--rows``), stored as a run in a
throwaway SQLite store and judged with :func:`tooleval.calibration.calibrate`.
The data is read from ``--data`` / ``$TOOLEVAL_SHARED_DATA`` / ``../shared/data``.
Printed per set: rows judged and not judged (with why), the confusion matrix,
agreement, Cohen's kappa, wall time, rows per minute, tokens in and out.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", action="append", dest="sets", help="a set (default: every set)")
    parser.add_argument("--rows", type=int, default=10)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--max-new-tokens", type=int, default=96)
    parser.add_argument("--base-url")
    parser.add_argument("--model")
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()
    from tooleval.calibration import calibrate
    from tooleval.calibration.sets import CALIBRATION_SETS, store_set
    from tooleval.llm import LocalJudge, OpenAIJudge
    from tooleval.store import open_store

    out = []
    for name in args.sets or list(CALIBRATION_SETS):
        if args.base_url:
            judge = OpenAIJudge(args.model, base_url=args.base_url, api_key="none", cache=False)
        else:
            judge = LocalJudge(max_new_tokens=args.max_new_tokens, cache=False).load()
        with tempfile.TemporaryDirectory() as folder, open_store(Path(folder) / "b.db") as store:
            run_id = store_set(store, name, data=args.data, rows=args.rows, seed=args.seed)
            started = time.perf_counter()
            report = calibrate(store, run_id, CALIBRATION_SETS[name].metric, judge=judge)
            seconds = time.perf_counter() - started
        usage = judge.usage.to_dict()
        c = report.confusion
        kappa = report.figures.get("kappa")
        line = {
            "set": name,
            "rows": report.labels,
            "judged": c.n,
            "not_judged": len(report.unscored),
            "why_not": sorted({u["reason"][:80] for u in report.unscored}),
            "confusion": {"tp": c.tp, "fn": c.fn, "fp": c.fp, "tn": c.tn},
            "agreement": (c.tp + c.tn) / c.n if c.n else None,
            "kappa": kappa,
            "seconds": round(seconds, 1),
            "rows_per_minute": round(60 * report.labels / seconds, 2) if seconds else None,
            "tokens_in": usage.get("tokens_in"),
            "tokens_out": usage.get("tokens_out"),
            "model": judge.model,
        }
        out.append(line)
        print(json.dumps(line), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
