"""``tooleval score``: score a file of canonical rows with one metric or several.

Contract (other tools rely on it): one JSON object per input row and metric,
in input order (a row's metrics in the order of ``--metric``), with ``id``,
``metric``, ``score`` (null when unscored), ``passed``, ``reason``,
``diagnosis``, ``params`` and ``threshold``. The file is scored by
:func:`tooleval.evaluation.files.score_file` (through :mod:`tooleval.scoring`
and its error policy); this module parses arguments and prints. An option
given twice is refused (:mod:`tooleval.cli._options`). Exit 0 on success (and
a gate that passed), 1 when a gate (``--min-pass-rate``,
``--max-unscored-rate``, checked by :mod:`tooleval.analysis.gate_checks`)
failed, 2 with a one-line message naming the row and field on unreadable
input, a bad option, or a file where no row holds a field a metric needs
(``--bind`` suggested). ``--table``, the gate and the progress bar
(:mod:`tooleval.cli._progress`) read the tally ``score_file`` returns.

Rows are read from JSONL, or from CSV/TSV/Parquet/JSON-array files (by
extension, or by content when the extension says nothing). ``--output`` is
checked before any row is scored and written atomically: the file appears
complete or not at all, and it may not be the input file. An empty file and a
row that says nothing about the agent's calls (no ``tools_called``, no
``messages``) are input errors, not rows scored 0. See docs/errors.md.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from tooleval.cli._options import refuse_repeats
from tooleval.errors import ConfigError, ToolEvalError
from tooleval.stdio import stdout_bytes

_MAX_THREADS = 8  # tooleval.scoring.MAX_THREADS, for the help text (no import at start-up)
TABLE_ROWS = 30  # tooleval.cli._table.TABLE_ROWS, for the help text
JUDGE_ENV = "TOOLEVAL_JUDGE"  # the judge when --judge is not given (a type or a file)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "score",
        help="score a JSONL dataset of canonical rows with one metric or several",
        description="Score every row of a dataset (JSONL, CSV, TSV, Parquet, JSON) with one "
        "metric or several and write JSONL results (one line per row and metric). Exit 0, "
        "1 when a gate option failed, 2 on a usage or input error.",
    )
    parser.add_argument(
        "dataset",
        help="file of canonical rows ('-' for stdin), or a benchmark's result file or folder "
        "(see --format)",
    )
    parser.add_argument(
        "--metric",
        action="append",
        default=[],
        help="metric name (see `tooleval metrics`); repeat for several (each once), scored in "
        "one read of the file (one line per row and metric); default with --format: the "
        "benchmark's profile",
    )
    parser.add_argument(
        "--format",
        help="a benchmark (`tooleval metrics` lists them, with their default metric), jsonl or "
        "json; any case, - or _ (default: detected when unambiguous, else canonical rows); "
        "see docs/benchmarks/",
    )
    parser.add_argument(
        "--data",
        metavar="PATH",
        help="the benchmark's data, when it reads any: its folder or reference file "
        "(`tooleval metrics` says what each benchmark takes)",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="[METRIC.]KEY=VALUE",
        help="metric parameter; VALUE is parsed as JSON when it can be (order=flexible, "
        "exact_match=true); with several --metric write METRIC.KEY=VALUE",
    )
    parser.add_argument(
        "--preset",
        metavar="NAME",
        help="named options that decide verdicts, under any --option: release (strict order, "
        "threshold 1, the reference's argument keys compared; docs/metrics.md)",
    )
    parser.add_argument(
        "--bind",
        action="append",
        default=[],
        metavar="FIELD=COLUMN",
        help="read a Sample field from another column (key in JSONL), as in `tooleval dataset "
        "check` and a plan's dataset: {bind: ...}: --bind expected_tools=gold (repeatable)",
    )
    parser.add_argument("--output", "-o", help="write JSONL results here instead of stdout")
    parser.add_argument(
        "--fields",
        default="full",
        metavar="PRESET|FIELDS",
        help="keys of each result line: full (default), compact (id, metric, score, verdict, "
        "code) or a list like id,score,passed (tooleval.scoring.fields)",
    )
    parser.add_argument(
        "--table",
        action="store_true",
        help="print one table (a column per metric, failing rows first) and a summary per "
        "metric on stdout; the JSONL results go only to --output (without it, none are written)",
    )
    parser.add_argument(
        "--table-rows",
        type=int,
        default=None,
        metavar="N",
        help=f"rows the --table shows at most (default {TABLE_ROWS}); the rest are counted "
        "in a note and are all in the results",
    )
    parser.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress: a bar when stderr is a terminal and $CI is unset, else a line on "
        "stderr every 10 s ($TOOLEVAL_PROGRESS_SECONDS) once a run takes that long",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="score blocks of rows on N threads with the compiled kernel (default: the idle "
        f"CPUs, by the load average, at most {_MAX_THREADS}), or chunks of rows in N processes in pure Python "
        "(default 1: in-process); output order and bytes kept, also with --table and a gate "
        "(they read the result lines as they are written); at most the CPU count",
    )
    gate = parser.add_argument_group(
        "gate (exit 0 passed, 1 failed, 2 usage or input error, as `tooleval run`)"
    )
    gate.add_argument(
        "--min-pass-rate",
        action="append",
        default=[],
        metavar="[METRIC=]RATE",
        help="fail (exit 1) when a metric's pass rate (passed / scored rows; unscored rows "
        "are neither) is under RATE (0-1); without METRIC= for every metric; repeatable. "
        "With any gate option, a metric with no floor must pass at least one row",
    )
    gate.add_argument(
        "--max-unscored-rate",
        action="append",
        default=[],
        metavar="[METRIC=]RATE",
        help="fail (exit 1) when more than RATE (0-1) of a metric's rows could not be "
        "scored; without METRIC= for every metric; repeatable",
    )
    add_judge_options(parser)
    refuse_repeats(parser)
    parser.set_defaults(handler=run)


def add_judge_options(parser: argparse.ArgumentParser) -> None:
    """``--judge``, ``--judge-option`` and ``--concurrency`` (read by :func:`make_judge`)."""
    judging = parser.add_argument_group("judged metrics (task_success, goal_accuracy, ...)")
    judging.add_argument(
        "--judge",
        metavar="local|openai|FILE",
        help="the LLM judge: a type (options from --judge-option) or a YAML/JSON file holding "
        f"a judge: mapping as in a plan (default: ${JUDGE_ENV}); see docs/judges.md",
    )
    judging.add_argument(
        "--judge-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a judge option (model=gpt-4o-mini, base_url=http://127.0.0.1:8765/v1, "
        "api_key_env=OPENAI_API_KEY, cache=false); VALUE as JSON when it parses",
    )
    judging.add_argument(
        "--concurrency",
        type=int,
        default=None,
        metavar="N",
        help="rows judged at once (default: the local judge's batch, 8; other judges 4)",
    )


def parse_options(pairs: list[str]) -> dict[str, Any]:
    """Turn ``KEY=VALUE`` strings into parameters, VALUE as JSON when possible.

    A key given twice is refused (never the last one silently kept).

    >>> parse_options(["order=flexible", "exact_match=true", 'argument_keys=["a"]'])
    {'order': 'flexible', 'exact_match': True, 'argument_keys': ['a']}
    """
    import orjson

    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(f"--option {pair!r} must look like KEY=VALUE", field="--option")
        try:
            parsed = orjson.loads(value)
        except orjson.JSONDecodeError:
            parsed = value
        if key in options:
            raise ConfigError(
                f"--option {key} given twice ({options[key]!r}, then {parsed!r}); give it once",
                field="--option",
            )
        options[key] = parsed
    return options


def metric_options(names: list[str], pairs: list[str]) -> dict[str, dict[str, Any]]:
    """``--option`` values by metric: ``KEY=VALUE`` with one metric, ``METRIC.KEY=VALUE`` with several.

    >>> metric_options(["tool_call_f1", "tool_correctness"], ["tool_correctness.order=strict"])
    {'tool_call_f1': {}, 'tool_correctness': {'order': 'strict'}}
    >>> metric_options(["tool_correctness"], ["order=strict"])
    {'tool_correctness': {'order': 'strict'}}
    """
    by_metric: dict[str, list[str]] = {name: [] for name in names}
    for pair in pairs:
        left = pair.partition("=")[0]
        metric, dot, key = left.rpartition(".")
        if dot and metric.strip() in by_metric:
            by_metric[metric.strip()].append(pair[len(metric) + 1 :])
        elif len(names) == 1:
            by_metric[names[0]].append(pair)
        else:
            raise ConfigError(
                f"--option {pair!r}: with several metrics write METRIC.{pair} "
                f"(one of {', '.join(names)})",
                field="--option",
            )
    return {name: parse_options(given) for name, given in by_metric.items()}


def _metric_names(given: list[str]) -> list[str]:
    """The --metric names in order; a name given twice is refused (never collapsed silently).

    >>> _metric_names(["tool_call_f1", " tool_correctness"])
    ['tool_call_f1', 'tool_correctness']
    """
    names = [name.strip() for name in given]
    if any(not name for name in names):
        raise ConfigError("a metric name cannot be empty", field="--metric")
    for index, name in enumerate(names):
        if name in names[:index]:
            raise ConfigError(
                f"--metric {name} given twice; give each metric once (its options with "
                f"--option {name}.KEY=VALUE)",
                field="--metric",
            )
    return names


def run(args: argparse.Namespace) -> int:
    from tooleval.benchmarks.score_format import resolve_score_format
    from tooleval.cli._score_gate import parse_gate_rules
    from tooleval.evaluation.file_input import bind_spec, existing_file, sniff_dataset
    from tooleval.evaluation.files import FileJob, check_fields_first
    from tooleval.llm.base import rows_at_once
    from tooleval.metrics.registry import bind, get_metric

    names = _metric_names(args.metric)
    options = metric_options(names or ["(default)"], args.option)
    rest = names[1:]
    args.metric = names[0] if names else None  # the format's default metric when none
    first = options.pop(args.metric or "(default)")
    chosen = resolve_score_format(
        args.dataset, format=args.format, metric=args.metric, options=first, data=args.data
    )
    args.format, args.metric, first = chosen.format, chosen.metric, dict(chosen.options)
    options = {args.metric: first, **options}
    if args.preset is not None:  # the preset's values under the options given
        from tooleval.metrics.presets import apply_preset

        options = apply_preset(args.preset, options, field="--preset")
    names = [args.metric, *rest]
    columns = bind_spec(args.bind, chosen)
    rules = parse_gate_rules(args.min_pass_rate, args.max_unscored_rate, names)
    if args.table_rows is not None and args.table_rows < 1:
        raise ConfigError(
            f"--table-rows must be 1 or more, got {args.table_rows}", field="--table-rows"
        )
    judged = [name for name in names if get_metric(name).needs_judge]
    _refuse_unneeded(args, judged, names)
    judge = make_judge(args, judged) if judged else None
    if args.workers is not None and args.workers < 1:
        raise ConfigError(f"--workers must be 1 or more, got {args.workers}", field="--workers")
    from tooleval.scoring.fields import FieldsWriter, parse_fields

    fields = parse_fields(args.fields)  # checked before any row
    if args.output:  # before any work: a bad path must not cost a scored file
        from tooleval.io_atomic import check_output_path
        from tooleval.scoring.fields import FIELDS

        check_output_path(
            args.output,
            option="--output",
            inputs=[args.dataset],
            kind="jsonl",
            keys=FIELDS,
            writes="result lines",
        )
    metrics = [  # parameters checked once
        bind(name, **options[name], **({"judge": judge} if name in judged else {}))
        for name in names
    ]
    kind = args.format or (
        "jsonl" if args.dataset == "-" else sniff_dataset(existing_file(args.dataset))
    )
    workers = args.workers
    if workers and workers > 1 and kind == "jsonl" and not judged:  # threads or processes
        workers = cap_workers(workers)
    job = FileJob(
        args.dataset,
        kind,
        chosen.benchmark,
        metrics,
        names,
        columns,
        data=args.data,
        workers=workers,
        concurrency=rows_at_once(judge, args.concurrency),
    )
    with _naming_input(args.dataset):
        check_fields_first(job)  # a missing field refused before any row is written
    discard = args.table and not args.output  # the table is what was asked for
    with _output(args.output, discard=discard) as out, _naming_input(args.dataset):
        cut: Any = FieldsWriter(out, fields) if fields else out
        tally = _score_watched(
            job,
            cut,
            table_rows=(args.table_rows or TABLE_ROWS) if args.table else None,
            gate=not rules.is_empty,
            quiet=args.no_progress,
        )
    if judge is not None:
        _print_usage(judge)
    if chosen.notice:  # the benchmark's grader says which one it chose, on what
        print(f"tooleval score: {chosen.notice}", file=sys.stderr)
    if tally is not None and args.table:
        _print_table(tally, names, output=args.output)
    if tally is not None and not rules.is_empty:
        from tooleval.cli._score_gate import check_gate, print_gate

        verdict = check_gate(tally.tallies, rules)
        print_gate(verdict)
        return 0 if verdict.passed else 1
    return 0


def _refuse_unneeded(args: argparse.Namespace, judged: list[str], names: list[str]) -> None:
    """Options that only matter with another option, or with a judged metric, are refused alone."""
    if judged:
        return
    given = [
        flag
        for flag, value in (
            ("--judge", args.judge),
            ("--judge-option", args.judge_option),
            ("--concurrency", args.concurrency),
        )
        if value not in (None, [])
    ]
    if given:
        raise ConfigError(
            f"{given[0]} is for judged metrics (task_success, goal_accuracy, ...; `tooleval "
            f"metrics` marks them), and none of {', '.join(names)} is judged; drop {given[0]} "
            "or add a judged --metric",
            field=given[0],
        )


def _score_watched(
    job: Any, out: IO[bytes], *, table_rows: int | None, gate: bool, quiet: bool
) -> Any:
    """Score ``job`` into ``out`` (:func:`tooleval.evaluation.files.score_file`), with progress.

    Progress is a bar on a terminal, else a line on stderr now and then; the
    tally comes back when the table or the gate needs it.
    """
    from tooleval.cli._progress import (
        LineProgress,
        RowProgress,
        count_lines,
        progress_wanted,
        stderr_console,
    )
    from tooleval.evaluation.files import score_file

    bar = progress_wanted() and not quiet
    lines = not bar and not quiet
    total = None
    if (bar or lines) and job.kind == "jsonl" and job.dataset != "-":
        total = count_lines(Path(job.dataset))
    watch: Any = (
        LineProgress(total=total)
        if lines
        else RowProgress(stderr_console() if bar else None, total=total)
    )
    with watch as progress:
        return score_file(
            job,
            out,
            tally=gate,
            table_rows=table_rows,
            progress=progress if bar or lines else None,
        )


def _print_table(tally: Any, names: list[str], *, output: str | None) -> None:
    from tooleval.cli._table import (
        print_corpus,
        print_metric_summary,
        print_rows_table,
        wide_console,
    )

    console = wide_console()
    if tally.rows and tally.table is not None:
        print_rows_table(console, tally.table, names, output=output)
    print_metric_summary(console, tally.tallies)
    for name, results in tally.kept.items():
        print_corpus(console, name, results)


def make_judge(args: argparse.Namespace, judged: list[str]) -> Any:
    """The judge of ``--judge`` / ``--judge-option`` (or ``$TOOLEVAL_JUDGE``), built as plans build it.

    ``--judge`` is a type (``local``, ``openai``) or a YAML/JSON file holding a
    judge mapping (top-level, or under ``judge:`` as in a plan); each
    ``--judge-option`` adds or replaces one key of it.
    """
    from tooleval.llm import judge_from_config
    from tooleval.llm.spec import read_judge_file as _judge_file  # shared with evaluate()

    spec = args.judge or os.environ.get(JUDGE_ENV) or ""
    field = "--judge" if args.judge else JUDGE_ENV
    if not spec.strip():
        raise ConfigError(
            f"{', '.join(judged)} need(s) an LLM judge: give --judge local (the bundled model, "
            "tooleval[local]) or --judge openai --judge-option model=... --judge-option "
            f"base_url=..., or set ${JUDGE_ENV}",
            field="--judge",
        )
    config: dict[str, Any] = {"type": spec.strip()}
    path = Path(spec)
    if spec.strip() not in ("local", "openai") and (path.suffix or path.exists()):
        config = _judge_file(path, field)
    config.update(parse_options(args.judge_option))
    if args.concurrency is not None and args.concurrency < 1:
        raise ConfigError(
            f"--concurrency must be 1 or more, got {args.concurrency}", field="--concurrency"
        )
    return judge_from_config(config, field=field)


def _print_usage(judge: Any) -> None:
    usage = judge.usage.to_dict()
    print(
        f"tooleval score: judge {usage.get('calls', 0)} calls, "
        f"{usage.get('cached_calls', 0)} from the cache, "
        f"{usage.get('tokens_in', 0)} tokens in, {usage.get('tokens_out', 0)} out",
        file=sys.stderr,
    )


def cap_workers(requested: int) -> int:
    """``requested`` limited to the CPUs this process may use (a note on stderr if lowered)."""
    from tooleval.scoring import cpus

    available = cpus()
    if requested > available:
        print(
            f"tooleval score: --workers {requested} lowered to {available} (the CPUs available)",
            file=sys.stderr,
        )
        return available
    return requested


@contextlib.contextmanager
def _naming_input(dataset: str) -> Iterator[None]:
    """Errors about rows name the input file too (``file d.jsonl, row 6: ...``)."""
    try:
        yield
    except ToolEvalError as exc:
        field_name = str(exc.field or "")
        if dataset == "-" or "file" in exc.context or field_name.startswith(("-", "DATASET")):
            raise
        raise exc.with_context(file=dataset) from None


@contextlib.contextmanager
def _output(path: str | None, *, discard: bool = False) -> Iterator[IO[bytes]]:
    """The results stream: a file written atomically, stdout, or nowhere (``discard``)."""
    if discard:
        with open(os.devnull, "wb") as nowhere:
            yield nowhere
    elif path:
        from tooleval.io_atomic import atomic_write

        with atomic_write(path) as handle:
            yield handle
    else:
        stream = stdout_bytes()
        try:
            yield stream
        finally:
            stream.flush()
