"""A judge on each shipped calibration set: parse rate, agreement, kappa and throughput.

    python bench/judges/calibration_sets.py --rows 10                   # the bundled SmolLM2-135M
    python bench/judges/calibration_sets.py --base-url http://127.0.0.1:8080/v1 --model qwen

Each set (``tooleval judge calibrate --set``: tau-airline, tau2-airline,
bfcl-tools-error; labels from tau-bench's and tau2's rewards and BFCL's own
checker) is sampled (seeded, label-balanced, ``--rows``), stored as a run in a
throwaway SQLite store and judged with :func:`tooleval.calibration.calibrate`.
The data is read from ``--data`` / ``$TOOLEVAL_SHARED_DATA`` / ``../shared/data``.
Printed per set: rows judged and not judged (with why), the share of replies
that parsed, the confusion matrix, agreement, Cohen's kappa with its asymptotic
interval (statsmodels' ``cohens_kappa``), TPR and TNR with their Wilson
intervals, rows whose input was cut to fit the model's context, wall time and
rows per minute, CPU seconds of the process and rows per CPU minute (the figure
the machine's load does not change), tokens in and out. Progress goes to stderr
row by row; ``--json`` is rewritten after each set. Each set is run in turn;
run it under ``nice`` on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", action="append", dest="sets", help="a set (default: every set)")
    parser.add_argument("--rows", type=int, default=10)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--max-new-tokens", type=int, default=96)
    parser.add_argument("--model-path", help="a GGUF for the local judge (default: SmolLM2)")
    parser.add_argument("--base-url")
    parser.add_argument("--model")
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument(
        "--workers",
        type=int,
        help="rows judged at once (default: the local judge's batch_rows; 1: one row at a time)",
    )
    args = parser.parse_args(argv)
    from tooleval.calibration import calibrate
    from tooleval.calibration.sets import CALIBRATION_SETS, store_set
    from tooleval.llm import LocalJudge, OpenAIJudge
    from tooleval.store import open_store

    out = []
    for name in args.sets or list(CALIBRATION_SETS):
        if args.base_url:
            judge = OpenAIJudge(args.model, base_url=args.base_url, api_key="none", cache=False)
        else:
            judge = LocalJudge(
                args.model_path, max_new_tokens=args.max_new_tokens, cache=False
            ).load()
        if args.workers:
            judge.batch_rows = args.workers
        with tempfile.TemporaryDirectory() as folder, open_store(Path(folder) / "b.db") as store:
            run_id = store_set(store, name, data=args.data, rows=args.rows, seed=args.seed)
            counting = _CountingCuts(judge)
            started, cpu = time.perf_counter(), time.process_time()
            report = calibrate(
                store, run_id, CALIBRATION_SETS[name].metric, judge=counting, on_row=_progress(name)
            )
            seconds = time.perf_counter() - started
            cpu = time.process_time() - cpu
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
            "parsed": _share(c.n, report.labels),
            "agreement": _share(c.tp + c.tn, c.n),
            "kappa": kappa,
            "kappa_interval": _kappa_interval(c.tp, c.fn, c.fp, c.tn),
            "tpr": _rate(report.figures.get("tpr")),
            "tnr": _rate(report.figures.get("tnr")),
            "replies_with_input_cut": counting.cut,
            "seconds": round(seconds, 1),
            "rows_per_minute": round(60 * report.labels / seconds, 2) if seconds else None,
            "cpu_seconds": round(cpu, 1),
            "rows_per_cpu_minute": round(60 * report.labels / cpu, 2) if cpu else None,
            "workers": getattr(judge, "batch_rows", 1),
            "tokens_in": usage.get("tokens_in"),
            "tokens_out": usage.get("tokens_out"),
            "model": judge.model,
        }
        out.append(line)
        print(json.dumps(line), flush=True)
        if args.json:
            Path(args.json).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


def _progress(name: str):
    started = time.perf_counter()

    def report(done: int, total: int) -> None:
        minutes = (time.perf_counter() - started) / 60
        print(f"{name}: {done}/{total} rows, {minutes:.1f} min", file=sys.stderr, flush=True)

    return report


def _rate(figure) -> list[float] | None:
    """A TPR/TNR figure as [value, 95% Wilson low, high], None when undefined."""
    if not figure:
        return None
    interval = figure["interval"]
    return [round(figure["value"], 3), round(interval["low"], 3), round(interval["high"], 3)]


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _kappa_interval(tp: int, fn: int, fp: int, tn: int) -> list[float] | None:
    """95% interval of Cohen's kappa (statsmodels' asymptotic one), None when undefined."""
    try:
        from statsmodels.stats.inter_rater import cohens_kappa
    except ImportError:
        return None
    if 0 in (tp + fp, fn + tn, tp + fn, fp + tn):
        return None  # one side gave one answer only (a judge that fails every row): no interval
    result = cohens_kappa([[tp, fn], [fp, tn]])
    low, high = float(result.kappa_low), float(result.kappa_upp)
    return None if low != low or high != high else [round(low, 3), round(high, 3)]


class _CountingCuts:
    """The judge, counting the replies whose input it cut to fit its context."""

    def __init__(self, judge) -> None:
        self.judge = judge
        self.cut = 0

    def __getattr__(self, name: str):
        return getattr(self.judge, name)

    def complete(self, messages, *, schema=None):
        reply = self.judge.complete(messages, schema=schema)
        self.cut += reply.input_cut is not None
        return reply

    async def acomplete(self, messages, *, schema=None):
        reply = await self.judge.acomplete(messages, schema=schema)
        self.cut += reply.input_cut is not None
        return reply


if __name__ == "__main__":
    sys.exit(main())
