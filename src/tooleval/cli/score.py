"""``tooleval score``: score a file of canonical rows with one metric or several.

Contract (other tools rely on it): one JSON object per input row and metric,
in input order (a row's metrics in the order of ``--metric``), with ``id``,
``metric``, ``score`` (null when unscored), ``passed``, ``reason``,
``diagnosis``, ``params`` and ``threshold``. Scoring goes through
:mod:`tooleval.scoring` (its error policy decides what is an unscored row and
what stops the command); this module parses arguments and prints. An option
given twice is refused (:mod:`tooleval.cli._options`). Exit 0 on success,
2 with a one-line message naming the row and field on unreadable input.

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
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from tooleval.cli._options import refuse_repeats
from tooleval.errors import ConfigError, DatasetError, InputError, ToolEvalError

_MAX_THREADS = 8  # tooleval.scoring.MAX_THREADS, for the help text (no import at start-up)
JUDGE_ENV = "TOOLEVAL_JUDGE"  # the judge when --judge is not given (a type or a file)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "score",
        help="score a JSONL dataset of canonical rows with one metric or several",
        description="Score every row of a JSONL dataset with one metric or several and write "
        "JSONL results (one line per row and metric).",
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
        help="metric name (see `tooleval metrics`); repeat for several, scored in one read of "
        "the file (one line per row and metric); default with --format: the benchmark's profile",
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
    parser.add_argument("--output", "-o", help="write JSONL results here instead of stdout")
    parser.add_argument(
        "--table", action="store_true", help="also print a readable per-row table and a summary"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="score blocks of rows on N threads with the compiled kernel (default: the idle "
        f"CPUs, by the load average, at most {_MAX_THREADS}), or chunks of rows in N processes "
        "in pure Python (default 1: in-process); output order and bytes kept; ignored with --table; at most "
        "the CPU count",
    )
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
        help="rows judged at once (default 4)",
    )
    refuse_repeats(parser)
    parser.set_defaults(handler=run)


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
    """The --metric names in order; a name given twice is scored once (the two combine)."""
    names = list(dict.fromkeys(name.strip() for name in given))
    if any(not name for name in names):
        raise ConfigError("a metric name cannot be empty", field="--metric")
    return names


def run(args: argparse.Namespace) -> int:
    from tooleval.benchmarks.score_format import benchmark_samples, resolve_score_format
    from tooleval.metrics.registry import bind, get_metric
    from tooleval.scoring import score_parsed, score_samples, score_stream

    names = _metric_names(args.metric)
    options = metric_options(names or ["(default)"], args.option)
    rest = names[1:]
    args.metric = names[0] if names else None  # the format's default metric when none
    first = options.pop(args.metric or "(default)")
    chosen = resolve_score_format(
        args.dataset, format=args.format, metric=args.metric, options=first
    )
    args.format, args.metric, first = chosen.format, chosen.metric, dict(chosen.options)
    options = {args.metric: first, **options}
    names = [args.metric, *rest]
    judged = [name for name in names if get_metric(name).needs_judge]
    judge = make_judge(args, judged) if judged else None
    if args.workers is not None and args.workers < 1:
        raise ConfigError(f"--workers must be 1 or more, got {args.workers}", field="--workers")
    if args.output:  # before any work: a bad path must not cost a scored file
        from tooleval.io_atomic import check_output_path

        check_output_path(args.output, option="--output", inputs=[args.dataset])
    metrics = [  # parameters checked once
        bind(name, **options[name], **({"judge": judge} if name in judged else {}))
        for name in names
    ]
    metric = metrics[0] if len(metrics) == 1 else metrics
    kind = args.format or (
        "jsonl" if args.dataset == "-" else sniff_dataset(_existing(args.dataset))
    )
    workers = cap_workers(args.workers) if args.workers and args.workers > 1 else 1
    table_rows: list[tuple[str, Any, Any]] | None = [] if args.table else None
    keep = None if table_rows is None else (lambda *found: table_rows.append(found))
    with _naming_input(args.dataset), _output(args.output) as out:
        if judge is not None:
            count = _score_judged(args, kind, chosen.benchmark, metrics, out, keep)
        elif kind != "jsonl":
            samples = (
                benchmark_samples(Path(args.dataset), kind, data=args.data)
                if chosen.benchmark
                else tabular_samples(Path(args.dataset), kind, metrics)
            )
            count = score_samples(metric, samples, out, on_result=keep)
        else:
            source = sys.stdin.buffer if args.dataset == "-" else _open(args.dataset)
            try:
                if keep is not None or len(metrics) > 1:
                    count = score_parsed(metric, source, out, on_result=keep)
                else:
                    threads = workers if args.workers else None
                    count = score_stream(metric, source, out, workers=workers, threads=threads)
            finally:
                if source is not sys.stdin.buffer:
                    source.close()
        if count == 0:
            raise InputError(
                "no rows to score: the input is empty or holds only blank lines", field="DATASET"
            )
    if judge is not None:
        _print_usage(judge)
    if table_rows is not None:
        from tooleval.cli._table import print_score_table

        for name in names:  # one table and summary per metric
            print_score_table(
                [found for found in table_rows if found[2].metric == name],
                metric=name,
                to_stderr=not args.output,
            )
    return 0


def make_judge(args: argparse.Namespace, judged: list[str]) -> Any:
    """The judge of ``--judge`` / ``--judge-option`` (or ``$TOOLEVAL_JUDGE``), built as plans build it.

    ``--judge`` is a type (``local``, ``openai``) or a YAML/JSON file holding a
    judge mapping (top-level, or under ``judge:`` as in a plan); each
    ``--judge-option`` adds or replaces one key of it.
    """
    from tooleval.llm import judge_from_config

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


def _judge_file(path: Path, field: str) -> dict[str, Any]:
    import yaml

    if not path.is_file():
        raise ConfigError(f"no such judge file: {path}", field=field)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"{path} is not YAML or JSON: {one_line_error(exc)}", field=field
        ) from None
    if isinstance(data, dict) and isinstance(data.get("judge"), dict):
        data = data["judge"]
    if not isinstance(data, dict):
        raise ConfigError(
            f"{path} holds no judge mapping (expected type: local|openai and its options)",
            field=field,
        )
    return dict(data)


def one_line_error(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def _score_judged(
    args: argparse.Namespace,
    kind: str,
    benchmark: bool,
    metrics: list[Any],
    out: IO[bytes],
    keep: Any,
) -> int:
    """Rows with a judged metric: read every row first, then judge them concurrently."""
    from tooleval.benchmarks.score_format import benchmark_samples
    from tooleval.scoring import read_samples, score_concurrently

    if benchmark:
        samples: Iterable[tuple[int, Any]] = benchmark_samples(
            Path(args.dataset), kind, data=args.data
        )
    elif kind != "jsonl":
        samples = tabular_samples(Path(args.dataset), kind, metrics)
    else:
        source = sys.stdin.buffer if args.dataset == "-" else _open(args.dataset)
        try:
            samples = list(read_samples(metrics, source))
        finally:
            if source is not sys.stdin.buffer:
                source.close()
    return score_concurrently(
        metrics, samples, out, concurrency=args.concurrency or 4, on_result=keep
    )


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


def _existing(path: str) -> Path:
    file = Path(path)
    if file.is_dir():
        raise InputError(f"{path} is a directory; expected a dataset file", field="DATASET")
    if not file.is_file():
        raise InputError(f"no such dataset file: {path}", field="DATASET")
    return file


def _open(path: str) -> IO[bytes]:
    return _existing(path).open("rb")


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
def _output(path: str | None) -> Iterator[IO[bytes]]:
    """The results stream: a file written atomically, or stdout."""
    if path:
        from tooleval.io_atomic import atomic_write

        with atomic_write(path) as handle:
            yield handle
    else:
        try:
            yield sys.stdout.buffer
        finally:
            sys.stdout.buffer.flush()


# ------------------------------------------------------------ other file kinds

_BOM = b"\xef\xbb\xbf"  # the same as tooleval.scoring.rows.BOM
_TABULAR_SUFFIXES = {".csv": "csv", ".tsv": "tsv", ".parquet": "parquet", ".pq": "parquet"}


def sniff_dataset(path: Path) -> str:
    """How to read a dataset file: ``jsonl``, ``json`` (an array), ``csv``, ``tsv`` or ``parquet``.

    The extension decides for CSV/TSV/Parquet; otherwise the first bytes do
    (``{`` JSONL, ``[`` a JSON array, ``PAR1`` Parquet, a delimited header
    CSV/TSV). An empty or binary file is an InputError naming it.
    """
    with path.open("rb") as handle:
        head = handle.read(65536)
    if not head.strip().removeprefix(_BOM).strip():
        raise InputError("the file is empty; expected rows to score", file=str(path))
    suffix = path.suffix.lower()
    if suffix in _TABULAR_SUFFIXES:
        return _TABULAR_SUFFIXES[suffix]
    if head.startswith(b"PAR1"):
        return "parquet"
    text = head.removeprefix(_BOM).lstrip()
    if text[:1] == b"{":
        return "jsonl"
    if text[:1] == b"[":
        return "json"
    if b"\x00" in head:
        raise InputError(
            "a binary file; expected JSONL, CSV, TSV, JSON or Parquet rows", file=str(path)
        )
    first = text.split(b"\n", 1)[0]
    if b"\t" in first:
        return "tsv"
    if b"," in first or b";" in first:
        return "csv"
    return "jsonl"  # reported as "row 1: invalid JSON" with the parser's reason


def tabular_samples(path: Path, kind: str, metric: Any = None) -> Iterable[tuple[int, Any]]:
    """``(row_number, Sample)`` for each data row of a CSV/TSV/Parquet/JSON-array file.

    ``metric``: a bound metric or a list of them.

    Columns named like canonical fields bind themselves; the first row that
    cannot be read stops with its DatasetError (row and column), as in JSONL;
    with ``metric``, so does a row without the agent's calls (see ``_no_calls``).
    """
    from tooleval.datasets.load import load_dataset
    from tooleval.scoring import check_calls_given

    # (a CSV header that is one column holding semicolons is refused by the reader)
    dataset = load_dataset(path, format=kind)
    for row in dataset.rows:
        if row.errors:
            raise row.errors[0]
        if row.error is not None:
            raise DatasetError(row.error, row=row.number)
        sample = row.sample
        if metric is not None and sample.tools_called is None and not sample.messages:
            cells = dict(dataset.raw_values()[row.index])
            for field_name, column in dataset.bindings.items():
                if column in cells:
                    cells[field_name] = cells.pop(column)
            for each in metric if isinstance(metric, list) else [metric]:
                check_calls_given(each, row.number, cells)
        yield row.number, sample
