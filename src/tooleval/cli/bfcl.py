"""``tooleval bfcl``: score BFCL result files with BFCL's own AST rules.

``tooleval bfcl RESULTS_DIR --data DATA_DIR [--output FILE]`` reads every
``BFCL_v*_<category>_result.json`` under RESULTS_DIR, pairs it with the
question and possible-answer files under DATA_DIR, and prints per-category
accuracy. ``--output`` writes one JSON object per result id: ``id``,
``category``, ``passed``, ``error`` (short code, null when passed),
``bfcl_error_type`` and ``reason``. A category this machine cannot score
(multi-turn without bfcl-eval, Java/JavaScript prompting without
tree-sitter) is named on stderr with the reason and the install that fixes
it, and shown as not scored; the other categories are scored. Exit 0 after
scoring (refused categories included), 2 on unreadable input, when a
category asked for with ``--category`` cannot be scored, or when no category
could be.

``--mode`` says how results are decoded: ``fc`` (function calling: lists of
``{name: arguments}``), ``prompt`` (text such as ``[f(a=1)]``, decoded per
language as BFCL's default decoders do) or ``auto``. ``--underscore-names``
says whether calls write dots in function names as underscores: ``yes``,
``no``, ``either`` or ``auto``. ``auto`` (the default for both) takes the
setting from BFCL's model list when RESULTS_DIR is named after a known model,
else decodes text as prompting and lists as function calling, and accepts
either spelling of a name. For a known model ``auto`` also uses the decoder
of its BFCL handler (Gemini's fence removal, Cohere's call objects, Qwen FC's
``<tool_call>`` blocks, ...; see :mod:`tooleval.benchmarks.bfcl.decode_handlers`
and :mod:`tooleval.benchmarks.bfcl.decode_templates`), and ``--mode NAME``
selects one of those decoders by hand (a known model decoded with another
decoder than its handler's gets a one-line warning).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from tooleval.benchmarks.bfcl.decode_handlers import DECODERS

#: The keys of a line ``--output`` writes (``verdict_rows``): an existing file is
#: replaced only when its first line has no other.
VERDICT_KEYS = ("id", "category", "passed", "error", "bfcl_error_type", "reason")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "bfcl",
        help="score BFCL result files (AST categories) like BFCL's own checker",
        description="Score BFCL model results with BFCL's AST rules and print accuracy per category.",
    )
    parser.add_argument(
        "results_dir", metavar="RESULTS_DIR", help="folder of BFCL_v*_<category>_result.json files"
    )
    parser.add_argument(
        "--data",
        required=True,
        metavar="DATA_DIR",
        help="folder with the BFCL question files (or a data/ subfolder) and possible_answer/",
    )
    parser.add_argument(
        "--output", "-o", metavar="FILE", help="write per-id verdicts as JSONL here"
    )
    parser.add_argument(
        "--category",
        action="append",
        default=None,
        metavar="NAME",
        help="score only this category (repeatable); default: every result file found",
    )
    parser.add_argument(
        "--mode",
        choices=("auto", *DECODERS),
        default="auto",
        metavar="MODE",
        help="decode results as function calling (fc), prompt-style text (prompt) or with "
        "one BFCL handler's decoder (openai, gemini_fc, cohere, tool_call_tags, hammer, "
        "xlam, llama_3_1, ...: see docs/benchmarks/bfcl.md); auto: BFCL's model list for a "
        "known model folder, else by the result's type",
    )
    parser.add_argument(
        "--underscore-names",
        choices=("auto", "yes", "no", "either"),
        default="auto",
        help="function names with dots written as underscores: yes, no, either; "
        "auto: BFCL's model list for a known model folder, else either",
    )
    parser.add_argument(
        "--assignment",
        choices=("greedy", "optimal"),
        default="greedy",
        help="pairing of parallel calls: greedy (BFCL) or optimal",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from tooleval.benchmarks.bfcl import read_results
    from tooleval.benchmarks.bfcl.reader import resolve_settings
    from tooleval.benchmarks.bfcl.report import verdict_rows
    from tooleval.errors import DatasetError
    from tooleval.io_atomic import check_output_path
    from tooleval.metrics.registry import bind

    if args.output:  # before any work: a bad path must not cost the scoring
        check_output_path(
            args.output,
            option="--output",
            inputs=[args.data],
            kind="jsonl",
            keys=VERDICT_KEYS,
            writes="BFCL verdict lines",
        )
    names = _NAME_RULES[args.underscore_names]
    settings = resolve_settings(args.results_dir, mode=args.mode, names=names)
    if settings.note:
        sys.stderr.write(f"warning: {settings.note}\n")
    if not Path(args.results_dir).is_dir():
        raise DatasetError("results directory not found", path=str(args.results_dir))
    # The reader and metric of `tooleval score --format bfcl`, category by category.
    folder = read_results(
        Path(args.results_dir),
        args.data,
        mode=settings.mode,
        names=settings.names,
        categories=args.category,
    )
    for category, why in folder.refused.items():
        sys.stderr.write(f"tooleval bfcl: category {category} not scored: {why}\n")
    metric = bind("bfcl_ast", assignment=args.assignment)
    samples = (s for per_category in folder.samples.values() for s in per_category)
    rows, summary = verdict_rows(metric, samples)
    if not rows:
        raise DatasetError(
            "no BFCL_v*_<category>_result.json files for AST, relevance or multi-turn "
            "categories could be scored"
            + (f" ({len(folder.refused)} refused: see above)" if folder.refused else ""),
            path=str(args.results_dir),
        )
    if args.output:
        _write_jsonl(Path(args.output), rows)
    sys.stdout.write(f"{settings.describe()}\n")
    for category, (mode, why) in folder.modes.items():
        sys.stdout.write(f"mode for {category}: {mode}, decided from its results ({why})\n")
    if any(str(row.get("category", "")).startswith("multi_turn") for row in rows):
        from tooleval.benchmarks.bfcl.multi_turn_env import api_version

        sys.stdout.write(f"multi-turn: replayed on bfcl-eval {api_version()}'s simulated APIs\n")
    _print_table(summary, folder.refused)
    return 0


# --underscore-names value -> the name rule of tooleval.benchmarks.bfcl.reader
_NAME_RULES = {"auto": "auto", "yes": "underscores", "no": "dots", "either": "either"}


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    from tooleval.errors import DatasetError

    try:
        with path.open("w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    except OSError as exc:
        raise DatasetError(f"cannot write output: {exc.strerror}", path=str(path)) from None


def _print_table(summary: list[tuple[str, int, int]], refused: dict[str, str]) -> None:
    width = max(len("category"), *(len(c) for c, _, _ in summary), *(len(c) for c in refused))
    out = sys.stdout
    out.write(f"{'category':<{width}}  {'accuracy':>8}  {'correct':>7}  {'total':>5}\n")
    for category, passed, total in summary:
        accuracy = passed / total if total else 0.0
        out.write(f"{category:<{width}}  {accuracy:>8.2%}  {passed:>7}  {total:>5}\n")
    for category in refused:
        out.write(f"{category:<{width}}  {'-':>8}  {'-':>7}  {'-':>5}  not scored (see above)\n")
    passed = sum(p for _, p, _ in summary)
    total = sum(t for _, _, t in summary)
    # Like BFCL's "overall" over these files: every id weighs the same.
    out.write(
        f"{'all (per id)':<{width}}  {passed / total if total else 0.0:>8.2%}  {passed:>7}  {total:>5}\n"
    )
