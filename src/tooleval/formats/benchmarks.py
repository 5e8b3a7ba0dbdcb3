"""Benchmark result files by name: which importer reads them and which metric scores them.

``tooleval score FILE --format NAME`` reads a benchmark's own output with
its importer and scores it with the profile metric that reproduces the
benchmark's verdict, unless ``--metric`` says otherwise:

=========== ========================================= =========================================
format      what FILE is                              default metric
=========== ========================================= =========================================
bfcl        a BFCL result file or folder (+ ``--data``) ``bfcl_ast``
tau-bench   a tau-bench trajectories JSON list        ``tau_bench_actions``
tau2        a tau2-bench results JSON object          ``tau2_actions``
api-bank    graded API-Bank rows (JSONL or JSON list) ``tool_correctness`` (``numeric_text``)
seal-tools  Seal-Tools predictions (+ ``--data`` ref)  ``seal_tools``
nestful     NESTFUL predictions (+ ``--data`` ref)     ``nestful``
jsonl       canonical rows, one per line              (``--metric`` required)
json        canonical rows in one JSON array          (``--metric`` required)
=========== ========================================= =========================================

Without ``--format``, :func:`detect_benchmark` names the format when the
content leaves no doubt (a tau2 object with ``tasks`` and ``simulations``, a
list of tau-bench runs, API-Bank rows, a ``BFCL_v*_result.json`` name or a
folder of them) and None otherwise (the file is then read as canonical rows).

>>> default_metric("api-bank")
('tool_correctness', {'args': 'numeric_text', 'exact_match': True})
>>> detect_benchmark_value({"tasks": [], "simulations": []})
'tau2'
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from tooleval.errors import ConfigError, DatasetError, InputError
from tooleval.formats.json_limits import NestingTooDeep, loads_text
from tooleval.model import Sample

__all__ = [
    "BENCHMARK_FORMATS",
    "SCORE_FORMATS",
    "benchmark_samples",
    "default_metric",
    "detect_benchmark",
    "detect_benchmark_value",
]

BENCHMARK_FORMATS = ("bfcl", "tau-bench", "tau2", "api-bank", "seal-tools", "nestful")
SCORE_FORMATS = (*BENCHMARK_FORMATS, "jsonl", "json")

_DEFAULTS: dict[str, tuple[str, dict[str, Any]]] = {
    "bfcl": ("bfcl_ast", {}),
    "tau-bench": ("tau_bench_actions", {}),
    "tau2": ("tau2_actions", {}),
    "api-bank": ("tool_correctness", {"args": "numeric_text", "exact_match": True}),
    "seal-tools": ("seal_tools", {}),
    "nestful": ("nestful", {}),
}
_APIBANK_GOLD = ("ground_truth", "gold", "expected_output")
_APIBANK_PRED = ("pred", "prediction")
_CANONICAL_CALLS = ("tools_called", "messages", "expected_tools")


def default_metric(fmt: str) -> tuple[str, dict[str, Any]] | None:
    """The metric and options that reproduce ``fmt``'s own verdict (None for jsonl/json)."""
    check_format(fmt)
    found = _DEFAULTS.get(fmt)
    return None if found is None else (found[0], dict(found[1]))


def check_format(fmt: str) -> str:
    """``fmt`` if it is a format ``tooleval score`` reads, else a ConfigError."""
    if fmt not in SCORE_FORMATS:
        raise ConfigError(
            f"unknown format {fmt!r}; expected one of {', '.join(SCORE_FORMATS)}",
            field="--format",
        )
    return fmt


def detect_benchmark_value(value: Any) -> str | None:
    """The benchmark a parsed JSON document (or first JSONL row) comes from, or None.

    >>> detect_benchmark_value([{"task_id": 0, "traj": [], "info": {}}])
    'tau-bench'
    >>> detect_benchmark_value({"pred": "[A()]", "expected_output": "[A()]"})
    'api-bank'
    >>> detect_benchmark_value([{"role": "user", "content": "hi"}]) is None
    True
    """
    if isinstance(value, Mapping):
        if isinstance(value.get("tasks"), list) and isinstance(value.get("simulations"), list):
            return "tau2"
        if _is_apibank_row(value):
            return "api-bank"
        return _nested_benchmark(value)
    if isinstance(value, list) and value and isinstance(value[0], Mapping):
        first = value[0]
        if "traj" in first and isinstance(first.get("info"), Mapping) and "task_id" in first:
            return "tau-bench"
        if _is_apibank_row(first):
            return "api-bank"
        return _nested_benchmark(first)
    return None


def _nested_benchmark(row: Mapping[str, Any]) -> str | None:
    """``seal-tools`` or ``nestful`` for one record of theirs (reference or prediction)."""
    if any(k in row for k in _CANONICAL_CALLS):
        return None
    if "calling" in row and "query" in row:
        return "seal-tools"
    if "predict" in row and isinstance(row.get("gold_data"), Mapping):
        return "seal-tools"
    output = row.get("output")
    if "input" in row and (
        "generated_text" in row
        or (
            isinstance(output, list)
            and output
            and isinstance(output[0], Mapping)
            and "name" in output[0]
            and "arguments" in output[0]
        )
    ):
        return "nestful"
    return None


def _is_apibank_row(row: Mapping[str, Any]) -> bool:
    # gold inline, or file + id into API-Bank's dialogue files (evaluator_by_json's input)
    return (
        any(k in row for k in _APIBANK_PRED)
        and (any(k in row for k in _APIBANK_GOLD) or ("file" in row and "id" in row))
        and not any(k in row for k in _CANONICAL_CALLS)
    )


def detect_benchmark(path: str | Path) -> str | None:
    """The benchmark format of a file or folder when its name or content leaves no doubt.

    Cheap on large canonical files: a JSONL file is judged by its first line
    and a JSON array by its first element, both read from the first 64 KiB;
    only a JSON document spread over several lines is parsed whole (below
    64 MiB; larger ones need ``--format``).
    """
    path = Path(path)
    if path.is_dir():
        return "bfcl" if any(path.rglob("BFCL_v*_result.json")) else None
    if path.name.startswith("BFCL_v") and path.name.endswith("_result.json"):
        return "bfcl"
    try:
        with path.open("rb") as handle:
            head = handle.read(65536)
        size = path.stat().st_size
    except OSError:
        return None
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    whole_in_head = size <= len(head)
    if text[:1] == b"{":
        first_line, _, rest = text.partition(b"\n")
        if rest or whole_in_head:  # the first line is complete
            try:
                found = detect_benchmark_value(loads_text(first_line))
            except (ValueError, NestingTooDeep):
                found = None  # one document over several lines: parsed whole below
            else:
                if found in _JSONL_BENCHMARKS or not rest.strip():
                    return found  # JSONL rows, or the file's only line
                return None  # more rows follow: JSONL, whatever its first row looks like
    elif text[:1] == b"[":
        try:
            body = text[1:].lstrip().decode("utf-8", errors="replace")
            first, _ = json.JSONDecoder().raw_decode(body)
        except (ValueError, UnicodeDecodeError):
            pass  # the first element does not fit in the head (or the file is no JSON)
        else:
            return detect_benchmark_value([first])
    else:
        return None
    if size > _DOCUMENT_CHECK_LIMIT:
        return None
    try:
        return detect_benchmark_value(_read_json(path))
    except DatasetError:
        return None


_DOCUMENT_CHECK_LIMIT = 64 * 1024 * 1024  # whole-file parse only below this size
_JSONL_BENCHMARKS = ("api-bank", "seal-tools", "nestful")  # told by a JSONL file's first row


def json_document_problem(path: str | Path) -> str | None:
    r"""Say so when a ``.jsonl``-looking file is one JSON object spread over lines.

    Such a file would otherwise fail as "row 1: invalid JSON". Returns the
    message, or None (JSONL, an array, another kind of file, or too large to
    check cheaply).

    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
    ...     _ = f.write('{"id": "a",\n "tools_called": []}\n')
    >>> json_document_problem(f.name)[:39]
    'this is a JSON document, not JSONL: one'
    >>> os.unlink(f.name)
    """
    path = Path(path)
    try:
        with path.open("rb") as handle:
            head = handle.read(65536)
        size = path.stat().st_size
    except OSError:
        return None
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if text[:1] != b"{" or b"\n" not in text:
        return None
    try:
        loads_text(text.split(b"\n", 1)[0])
        return None  # the first line is a row: JSONL
    except (ValueError, NestingTooDeep):
        pass
    if size > _DOCUMENT_CHECK_LIMIT:
        return None
    try:
        value = _read_json(path)
    except DatasetError:
        return None
    if not isinstance(value, Mapping) or detect_benchmark_value(value) is not None:
        return None  # an array of rows, or a benchmark file (read with its importer)
    return (
        "this is a JSON document, not JSONL: one object over several lines; write one row "
        "per line, or a JSON array of rows, or pass --format for a benchmark file "
        f"({', '.join(BENCHMARK_FORMATS)})"
    )


def _read_json(path: Path) -> Any:
    try:
        with path.open("rb") as handle:
            return loads_text(handle.read().removeprefix(b"\xef\xbb\xbf"))
    except OSError as exc:
        raise DatasetError(f"cannot read file: {exc.strerror}", path=str(path)) from None
    except NestingTooDeep as exc:
        raise DatasetError(exc.message, path=str(path)) from None
    except ValueError as exc:
        raise DatasetError(f"invalid JSON: {exc}", path=str(path)) from None


def benchmark_samples(
    path: str | Path, fmt: str, *, data: str | Path | None = None
) -> Iterator[tuple[int, Sample]]:
    """``(number, Sample)`` for every record of a benchmark file, read by ``fmt``'s importer.

    ``data`` is BFCL's data folder (questions and ``possible_answer/``), which
    BFCL needs, API-Bank's dialogue folder, where rows without their gold
    call find it, or the reference file of Seal-Tools / NESTFUL predictions;
    the tau formats ignore it.
    """
    path = Path(path)
    if fmt == "tau-bench":
        from tooleval.formats.tau import load_tau_bench

        samples = load_tau_bench(path)
    elif fmt == "tau2":
        from tooleval.formats.tau import load_tau2_results

        samples = load_tau2_results(path)
    elif fmt == "api-bank":
        from tooleval.formats.apibank import load_apibank

        samples = load_apibank(path, dialogues=data)
    elif fmt == "bfcl":
        samples = _bfcl_samples(path, data)
    elif fmt == "seal-tools":
        from tooleval.formats.seal_tools import load_seal_tools

        samples = load_seal_tools(path, reference=data)
    elif fmt == "nestful":
        from tooleval.formats.nestful import load_nestful

        samples = load_nestful(path, reference=data)
    else:
        raise ConfigError(
            f"format {fmt!r} is not a benchmark; expected one of {', '.join(BENCHMARK_FORMATS)}",
            field="--format",
        )
    yield from enumerate(samples, start=1)


def _bfcl_samples(path: Path, data: str | Path | None) -> list[Sample]:
    from tooleval.formats.bfcl import category_from_filename, load_bfcl

    if data is None:
        raise ConfigError(
            "--format bfcl needs --data DIR: BFCL's data folder with the question files "
            "and possible_answer/",
            field="--data",
        )
    if path.is_dir():
        per_category = load_bfcl(path, data)
    else:
        category = category_from_filename(path.name)
        if category is None:
            raise DatasetError(
                "not a BFCL result file name (expected BFCL_v<N>_<category>_result.json)",
                path=str(path),
            )
        per_category = load_bfcl(path.parent, data, categories=[category], result_file=path)
    return [sample for samples in per_category.values() for sample in samples]


def resolve_score_format(
    args: Any, options: dict[str, Any]
) -> tuple[str | None, str, dict[str, Any]]:
    """``(format, metric, options)`` for ``tooleval score`` from its arguments.

    The format is ``--format``, else what :func:`detect_benchmark` finds,
    else None (canonical rows, read as the file's shape says). The metric is
    ``--metric``, else the format's default (whose options the user's
    ``--option`` values override). Also sets ``args.format`` / ``args.data``
    when the caller's namespace lacks them.
    """
    fmt = getattr(args, "format", None)
    dataset = getattr(args, "dataset", "-")
    if getattr(args, "data", None) is None:
        args.data = None
    if fmt is not None:
        check_format(fmt)
    elif dataset != "-":
        fmt = detect_benchmark(dataset)
    if fmt in BENCHMARK_FORMATS and dataset == "-":
        raise ConfigError(
            f"--format {fmt} reads a file or folder, not standard input", field="DATASET"
        )
    if fmt is None and dataset != "-":
        problem = json_document_problem(dataset)
        if problem is not None:
            raise InputError(problem, file=str(dataset))
    metric = getattr(args, "metric", None)
    if metric is None:
        found = default_metric(fmt) if fmt is not None else None
        if found is None:
            raise ConfigError(
                "--metric is required for canonical rows (or give --format "
                f"{'|'.join(BENCHMARK_FORMATS)} to use the benchmark's own metric)",
                field="--metric",
            )
        metric, defaults = found
        options = {**defaults, **options}
    return fmt, metric, options
