"""Measure a judge model on hand-labelled conversations before trusting it.

    python bench/judges/run.py --base-url http://127.0.0.1:11434/v1 --model qwen2.5:7b
    python bench/judges/run.py --local        # SmolLM2-135M: plumbing only, it parrots
    python bench/judges/run.py --base-url https://api.openai.com/v1 --model gpt-4o-mini \
        --api-key-env OPENAI_API_KEY --metric tools_error --json out.json

For every case in ``cases.jsonl`` (a tooleval dataset whose ``metadata`` holds
the metric, its options and the expected score) it runs the judged metric and
reports, per metric: accuracy (score equal to the label, ±0.01), how many rows
came back unscored (unusable judge replies, counted as wrong), how many of
those copied the prompt's example instead of judging, and for ``tools_error``
the per-call flag accuracy (error / no error per tool call). Any
OpenAI-compatible endpoint can be measured (``--base-url``/``--model``).
Judge calls go through the cache only with ``--cache PATH``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TOLERANCE = 0.01
PARROT = "repeats the prompt's example"


def load_cases(path: Path) -> list[tuple[Any, dict]]:
    from tooleval.formats import sample_from_row

    cases = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            row = json.loads(line)
            cases.append((sample_from_row(row, row_number=number), row["metadata"]))
    return cases


def make_judge(args: argparse.Namespace):
    from tooleval.llm import judge_from_config

    cache: Any = args.cache if args.cache else False
    if args.local:
        config = {"type": "local", "max_new_tokens": args.max_new_tokens, "cache": cache}
    else:
        config = {"type": "openai", "model": args.model, "base_url": args.base_url, "cache": cache}
        if args.api_key_env:
            config["api_key_env"] = args.api_key_env
    return judge_from_config(config)


def per_call_flags(result) -> list[bool] | None:
    calls = result.diagnosis.details.get("calls")
    if not result.is_scored or not isinstance(calls, list):
        return None
    return [bool(c["errors"]) for c in calls]


def run(args: argparse.Namespace) -> dict[str, Any]:
    cases = load_cases(Path(args.cases))
    if args.metric:
        cases = [c for c in cases if c[1]["metric"] in args.metric]
    if args.limit:
        cases = cases[: args.limit]
    judge = make_judge(args)
    rows = []
    started = time.perf_counter()
    for sample, meta in cases:
        row = score_case(sample, meta, judge)
        rows.append(row)
        if args.verbose:
            mark = "ok " if row["correct"] else ("-- " if row["unscored"] else "XX ")
            print(
                f"{mark}{sample.id:32} expected {row['expected']:.3g} got {row['score']}"
                f"  {row['seconds']}s"
            )
            sys.stdout.flush()
    return summarise(rows, judge, time.perf_counter() - started)


def score_case(sample: Any, meta: dict, judge: Any) -> dict[str, Any]:
    """Run one labelled case and compare the judge's score with the label."""
    from tooleval.metrics.registry import score_sample

    t0 = time.perf_counter()
    result = score_sample(meta["metric"], sample, judge=judge, **meta.get("params", {}))
    expected = meta["expected"]
    correct = result.is_scored and abs(result.score - expected) <= TOLERANCE
    row = {
        "id": sample.id,
        "metric": meta["metric"],
        "expected": expected,
        "score": result.score,
        "correct": bool(correct),
        "unscored": not result.is_scored,
        "copied_example": not result.is_scored and PARROT in (result.reason or ""),
        "reason": result.reason,
        "seconds": round(time.perf_counter() - t0, 2),
    }
    if "expected_flags" in meta:
        got = per_call_flags(result)
        want = meta["expected_flags"]
        row["flags_expected"] = want
        row["flags"] = got
        row["flags_correct"] = (
            sum(g == w for g, w in zip(got, want, strict=True)) if got is not None else 0
        )
    return row


def summarise(rows: list[dict], judge: Any, seconds: float) -> dict[str, Any]:
    by_metric: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_metric[row["metric"]].append(row)
    metrics = {}
    for name, group in sorted(by_metric.items()):
        entry = {
            "cases": len(group),
            "correct": sum(r["correct"] for r in group),
            "unscored": sum(r["unscored"] for r in group),
            "copied_example": sum(r.get("copied_example", False) for r in group),
        }
        entry["accuracy"] = round(entry["correct"] / len(group), 3)
        flagged = [r for r in group if "flags_expected" in r]
        if flagged:
            total = sum(len(r["flags_expected"]) for r in flagged)
            entry["call_flag_accuracy"] = round(sum(r["flags_correct"] for r in flagged) / total, 3)
        metrics[name] = entry
    correct = sum(r["correct"] for r in rows)
    return {
        "judge": judge.describe(),
        "cases": len(rows),
        "accuracy": round(correct / len(rows), 3) if rows else None,
        "unscored": sum(r["unscored"] for r in rows),
        "copied_example": sum(r.get("copied_example", False) for r in rows),
        "metrics": metrics,
        "usage": judge.usage.to_dict(),
        "seconds": round(seconds, 1),
        "rows": rows,
    }


def print_table(summary: dict[str, Any]) -> None:
    print(f"judge: {summary['judge']}")
    print(
        f"{'metric':18} {'cases':>5} {'correct':>7} {'unscored':>8} {'copied':>6} "
        f"{'accuracy':>8} {'call flags':>10}"
    )
    for name, m in summary["metrics"].items():
        flags = m.get("call_flag_accuracy")
        flags_text = f"{flags:.3f}" if flags is not None else "-"
        print(
            f"{name:18} {m['cases']:>5} {m['correct']:>7} {m['unscored']:>8} "
            f"{m['copied_example']:>6} {m['accuracy']:>8.3f} {flags_text:>10}"
        )
    accuracy = summary["accuracy"]
    accuracy_text = f"{accuracy:.3f}" if accuracy is not None else "-"
    correct = sum(m["correct"] for m in summary["metrics"].values())
    print(
        f"{'all':18} {summary['cases']:>5} {correct:>7} {summary['unscored']:>8} "
        f"{summary['copied_example']:>6} {accuracy_text:>8}"
    )
    usage = summary["usage"]
    print(
        f"judge calls: {usage['calls']} (+{usage['cached_calls']} cached), tokens in "
        f"{usage['tokens_in']}, out {usage['tokens_out']}; {summary['seconds']} s"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--local",
        action="store_true",
        help="the local SmolLM2-135M judge (plumbing only: it parrots prompt examples)",
    )
    where.add_argument("--base-url", help="an OpenAI-compatible endpoint (…/v1)")
    parser.add_argument("--model", help="model name at --base-url")
    parser.add_argument("--api-key-env", help="environment variable holding the API key")
    parser.add_argument("--max-new-tokens", type=int, default=256, help="local judge reply cap")
    parser.add_argument("--cases", default=str(HERE / "cases.jsonl"))
    parser.add_argument("--metric", action="append", help="only this metric (repeatable)")
    parser.add_argument("--limit", type=int, help="only the first N cases")
    parser.add_argument("--cache", help="judge cache file (default: no cache, every call is live)")
    parser.add_argument("--json", help="write the full summary (with per-case rows) here")
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per case")
    args = parser.parse_args(argv)
    if args.base_url and not args.model:
        parser.error("--model is required with --base-url")
    summary = run(args)
    print_table(summary)
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
