"""``tooleval judge labels import|export`` and ``tooleval judge calibrate``.

tooleval judge labels import RUN FILE [--metric M] [--labeller NAME]
tooleval judge labels export RUN [--metric M] [--format csv|jsonl] [--output FILE]
tooleval judge calibrate RUN --metric M [--local | --base-url URL --model NAME] [--json]
tooleval judge calibrate --set NAME [--rows N] [--data DIR] (--local | --base-url URL --model NAME)
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from tooleval.cli._groups import add_verb_group
from tooleval.errors import ConfigError

__all__ = ["add_label_verbs", "judge_config"]


def add_judge_options(parser: argparse.ArgumentParser, *, required: bool) -> None:
    """``--local`` or ``--base-url``/``--model``/``--api-key-env``: which judge to ask."""
    where = parser.add_mutually_exclusive_group(required=required)
    where.add_argument(
        "--local", action="store_true", help="the local SmolLM2 judge (plumbing only)"
    )
    where.add_argument("--base-url", help="an OpenAI-compatible endpoint, e.g. .../v1")
    parser.add_argument("--model", help="model name at --base-url")
    parser.add_argument("--api-key-env", help="environment variable holding the API key")
    parser.add_argument("--max-new-tokens", type=int, default=96, help="local reply length cap")


def judge_config(args: argparse.Namespace) -> dict[str, Any] | None:
    """The judge configuration the options name, or None when none was asked for."""
    if args.local:
        return {"type": "local", "max_new_tokens": args.max_new_tokens, "cache": False}
    if not args.base_url:
        if args.model:
            raise ConfigError("--model needs --base-url", field="--model")
        return None
    if not args.model:
        raise ConfigError("--model is required with --base-url", field="--model")
    config: dict[str, Any] = {
        "type": "openai",
        "model": args.model,
        "base_url": args.base_url,
        "cache": False,
    }
    if args.api_key_env:
        config["api_key_env"] = args.api_key_env
    return config


def add_label_verbs(verbs: Any) -> None:
    from tooleval.cli.run import add_store_option

    labels = add_verb_group(
        verbs,
        "labels",
        help="human verdicts (pass/fail per row and metric) of a stored run",
        description="Import people's pass/fail verdicts on a run's rows from CSV or JSONL, or "
        "export them. A label never changes a stored result.",
    )
    importing = labels.add_parser("import", help="store labels from a CSV or JSONL file")
    importing.add_argument("run", metavar="RUN", help="run id, unique prefix, latest or -N")
    importing.add_argument("file", metavar="FILE", help="CSV or JSONL (see docs/judges.md)")
    importing.add_argument("--metric", help="the metric of every line without a metric column")
    importing.add_argument("--labeller", help="who labelled, for lines without a labeller")
    add_store_option(importing)
    importing.set_defaults(handler=_import)

    exporting = labels.add_parser("export", help="write a run's labels as CSV or JSONL")
    exporting.add_argument("run", metavar="RUN", help="run id, unique prefix, latest or -N")
    exporting.add_argument("--metric", help="only this metric's labels")
    exporting.add_argument("--format", choices=("csv", "jsonl"), default="csv", help="csv")
    exporting.add_argument("--output", "-o", metavar="FILE", help="file to write (default stdout)")
    add_store_option(exporting)
    exporting.set_defaults(handler=_export)

    calibrate = verbs.add_parser(
        "calibrate",
        help="measure a judged metric against a run's labels (agreement, kappa, TPR/TNR); "
        "the result is stored under the judge's identity",
    )
    calibrate.add_argument(
        "run", metavar="RUN", nargs="?", help="run id, unique prefix, latest or -N (or --set)"
    )
    calibrate.add_argument("--metric", help="the judged metric to calibrate (a set names its own)")
    calibrate.add_argument(
        "--set",
        dest="calibration_set",
        metavar="NAME",
        help="a shipped calibration set instead of a run: tau-airline, tau2-airline, "
        "bfcl-tools-error (public data and labels; needs a judge)",
    )
    calibrate.add_argument(
        "--rows", type=int, default=40, help="with --set: label-balanced sample size (0: all)"
    )
    calibrate.add_argument("--seed", type=int, default=7, help="with --set: sampling seed")
    calibrate.add_argument(
        "--data",
        metavar="DIR",
        help="with --set: the folder holding the public data (default $TOOLEVAL_SHARED_DATA, "
        "else ../shared/data)",
    )
    add_judge_options(calibrate, required=False)
    calibrate.add_argument(
        "--confidence", type=float, default=0.95, help="interval confidence (default 0.95)"
    )
    calibrate.add_argument(
        "--no-save", action="store_true", help="report only; store no calibration"
    )
    calibrate.add_argument("--json", action="store_true", help="print the report as JSON")
    add_store_option(calibrate)
    calibrate.set_defaults(handler=_calibrate)


def _import(args: argparse.Namespace) -> int:
    from tooleval.cli.run import open_cli_store
    from tooleval.judged.registration import JUDGED_METRICS
    from tooleval.store import read_label_file, resolve_labels

    lines = read_label_file(args.file, metric=args.metric, labeller=args.labeller)
    with open_cli_store(args) as store:
        run_id = store.resolve_run_id(args.run)
        run = store.get_run(run_id)
        # A judged metric may be labelled on any run: `judge calibrate` can judge it now.
        metrics = list(dict.fromkeys([*(m.name for m in run.metrics), *JUDGED_METRICS]))
        labels = resolve_labels(lines, store.labels.row_indexes_by_id(run_id), metrics)
        stored = store.labels.set_labels(run_id, labels)
    print(f"stored {stored} label(s) on run {run_id} from {args.file}")
    return 0


def _export(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tooleval.cli.run import open_cli_store
    from tooleval.io_atomic import atomic_write, check_output_path
    from tooleval.store import LABEL_COLUMNS, labels_text

    target = (
        check_output_path(
            args.output,
            option="--output",
            stores=[args.store],
            kind=args.format,
            keys=LABEL_COLUMNS,
            writes="judge labels",
        )
        if args.output
        else None
    )
    with open_cli_store(args) as store:
        run_id = store.resolve_run_id(args.run)
        labels = store.labels.get_labels(run_id, metric=args.metric)
    text = labels_text(labels, fmt=args.format)
    if target is not None:
        with atomic_write(Path(target), "w") as handle:
            handle.write(text)
        print(f"wrote {len(labels)} label(s) of run {run_id} to {target}")
    else:
        sys.stdout.write(text)
    return 0


def _calibrate(args: argparse.Namespace) -> int:
    from tooleval.calibration import calibrate, corrected_line
    from tooleval.cli.run import open_cli_store
    from tooleval.llm.config import judge_from_config
    from tooleval.stats.calibration import corrected_rate

    if not 0.0 < args.confidence < 1.0:
        raise ConfigError(
            f"expected a number between 0 and 1, got {args.confidence}", field="--confidence"
        )
    config = judge_config(args)
    chosen = _calibration_set(args, config)
    judge = judge_from_config(config, field="--judge") if config is not None else None

    def progress(done: int, total: int) -> None:
        if judge is not None and sys.stderr.isatty():
            print(f"\rjudged {done}/{total} labelled rows", end="", file=sys.stderr)

    with open_cli_store(args, create=chosen is not None) as store:
        source = None
        if chosen is not None:
            from tooleval.calibration.sets import store_set

            run_id = store_set(store, chosen, data=args.data, rows=args.rows, seed=args.seed)
            source = f"calibration set {chosen} ({args.rows or 'all'} rows, seed {args.seed})"
            print(f"calibration set {chosen}: stored as run {run_id}", file=sys.stderr)
        else:
            run_id = store.resolve_run_id(args.run)
        report = calibrate(
            store,
            run_id,
            args.metric,
            judge=judge,
            confidence=args.confidence,
            save=not args.no_save,
            on_row=progress,
            source=source,
        )
        run = store.get_run(run_id)
    if judge is not None and sys.stderr.isatty():
        print(file=sys.stderr)
    summary = run.summaries.get(args.metric)
    # The run's own verdicts came from the run's judge: their rate is corrected only when
    # that judge is the one calibrated (stored verdicts).
    corrected = None
    if judge is None and summary is not None and summary.scored:
        corrected = corrected_rate(
            summary.passed, summary.scored, report.confusion, args.confidence
        )
    if args.json:
        out = report.to_dict()
        out["corrected_pass_rate"] = corrected.to_dict() if corrected is not None else None
        print(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        print_calibration(report.to_dict())
        if corrected is not None:
            print(f"run {run_id} {args.metric}: {corrected_line(corrected)}")
    return 0


def _calibration_set(args: argparse.Namespace, config: dict[str, Any] | None) -> str | None:
    """The set ``--set`` names (its metric then fills ``--metric``), or None for a run."""
    from tooleval.calibration.sets import CALIBRATION_SETS

    name = args.calibration_set
    if name is None:
        if args.run is None:
            raise ConfigError("give a RUN to calibrate against, or --set NAME", field="RUN")
        if args.metric is None:
            raise ConfigError("--metric is required with a RUN", field="--metric")
        return None
    if args.run is not None:
        raise ConfigError("give a RUN or --set NAME, not both", field="--set")
    found = CALIBRATION_SETS.get(name)
    if found is None:
        raise ConfigError(
            f"unknown calibration set {name!r}; expected one of {', '.join(CALIBRATION_SETS)}",
            field="--set",
        )
    if args.metric not in (None, found.metric):
        raise ConfigError(
            f"set {name} calibrates {found.metric}, not {args.metric}", field="--metric"
        )
    if config is None:
        raise ConfigError(
            "a calibration set holds labels, not verdicts: name the judge to measure "
            "(--local, or --base-url and --model)",
            field="--judge",
        )
    args.metric = found.metric
    return name


def _rate(figure: Any) -> str:
    if not figure:
        return "n/a"
    interval = figure["interval"]
    return (
        f"{figure['value']:.1%} [{interval['low']:.1%}, {interval['high']:.1%}] "
        f"({figure['successes']}/{figure['n']})"
    )


def print_calibration(report: dict[str, Any]) -> None:
    """A calibration report as a person reads it."""
    from tooleval.cli.main import one_line

    identity = report["identity"]
    kappa = report.get("kappa")
    print(
        f"judge {identity['model']} on {identity['metric']} "
        f"(prompt {identity['prompt_version']}), {report['source']}"
    )
    print(f"  labels {report['labels']}, compared {report['compared']}")
    print(f"  agreement {_rate(report.get('agreement'))}")
    print(f"  kappa     {'n/a' if kappa is None else f'{kappa:.3f}'}")
    print(f"  TPR       {_rate(report.get('tpr'))}   (of rows people passed, judge passed)")
    print(f"  TNR       {_rate(report.get('tnr'))}   (of rows people failed, judge failed)")
    c = report["confusion"]
    print("  confusion        judge pass  judge fail")
    print(f"    people pass    {c['tp']:>10}  {c['fn']:>10}")
    print(f"    people fail    {c['fp']:>10}  {c['tn']:>10}")
    for row in report["wrong"][:20]:
        print(
            f"  wrong: row {row['row_index']} ({row['row_id']}): labelled {row['label']}, "
            f"judged {row['verdict']}: {one_line(row['reason'], 100)}"
        )
    if len(report["wrong"]) > 20:
        print(f"  ... {len(report['wrong']) - 20} more wrong rows (--json lists them all)")
    for row in report["unscored"][:10]:
        print(
            f"  not judged: row {row['row_index']} ({row['row_id']}): {one_line(row['reason'], 100)}"
        )
    if report.get("id"):
        print(f"stored as calibration {report['id']}")
