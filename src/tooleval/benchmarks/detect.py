"""Which benchmark a file comes from, asked of every installed :class:`~tooleval.benchmarks.Benchmark`.

:func:`detect_benchmark` names the benchmark when the file's name or content
leaves no doubt (a record's ``detect_path`` or ``detect``) and None otherwise
(the file is then read as canonical rows). :func:`detection_problem` says
what it saw when a file looks like a benchmark's but cannot be one (cut
short, a required part missing): "looks like tau2 results, but ...".

>>> detect_benchmark_value({"tasks": [], "simulations": []})
'tau2'
>>> detect_benchmark_value([{"task_id": 0, "traj": [], "info": {}}])
'tau-bench'
>>> detect_benchmark_value([{"role": "user", "content": "hi"}]) is None
True
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tooleval.benchmarks.registry import list_benchmarks
from tooleval.errors import DatasetError
from tooleval.formats.json_limits import NestingTooDeep, loads_text

__all__ = [
    "detect_benchmark",
    "detect_benchmark_value",
    "detection_problem",
    "json_document_problem",
]

_HEAD = 65536
_DOCUMENT_CHECK_LIMIT = 64 * 1024 * 1024  # whole-file parse only below this size
_BOM = b"\xef\xbb\xbf"


def detect_benchmark_value(value: Any, *, jsonl_row: bool = False) -> str | None:
    """The benchmark a parsed JSON document (or first JSONL row) comes from, or None.

    A list is judged by its first element. With ``jsonl_row`` only
    benchmarks whose JSONL rows tell them apart (``jsonl_rows``) are asked.
    """
    if isinstance(value, list):
        if not value or not isinstance(value[0], Mapping):
            return None
    elif not isinstance(value, Mapping):
        return None
    for record in list_benchmarks():
        if record.detect is None or (jsonl_row and not record.jsonl_rows):
            continue
        try:
            if record.detect(value):
                return record.name
        except Exception:  # a third party's detector must not stop the others
            continue
    return None


def _by_path(path: Path) -> str | None:
    for record in list_benchmarks():
        if record.detect_path is not None and record.detect_path(path):
            return record.name
    return None


def _head(path: Path) -> tuple[bytes, int] | None:
    try:
        with path.open("rb") as handle:
            head = handle.read(_HEAD)
        return head.removeprefix(_BOM).lstrip(), path.stat().st_size
    except OSError:
        return None


def detect_benchmark(path: str | Path) -> str | None:
    """The benchmark format of a file or folder when its name or content leaves no doubt.

    Cheap on large canonical files: a JSONL file is judged by its first line
    and a JSON array by its first element, both read from the first 64 KiB;
    only a JSON document spread over several lines is parsed whole (below
    64 MiB; larger ones need ``--format``).
    """
    path = Path(path)
    found = _by_path(path)
    if found is not None or path.is_dir():
        return found
    got = _head(path)
    if got is None:
        return None
    text, size = got
    whole_in_head = size <= len(text)
    if text[:1] == b"{":
        first_line, _, rest = text.partition(b"\n")
        if rest or whole_in_head:  # the first line is complete
            try:
                value = loads_text(first_line)
            except (ValueError, NestingTooDeep):
                pass  # one document over several lines: parsed whole below
            else:
                if not rest.strip():
                    return detect_benchmark_value(value)  # the file's only line
                return detect_benchmark_value(value, jsonl_row=True)  # JSONL rows
    elif text[:1] == b"[":
        try:
            body = text[1:].lstrip().decode("utf-8", errors="replace")
            first, _ = json.JSONDecoder().raw_decode(body)
        except (ValueError, UnicodeDecodeError, RecursionError):
            pass  # the first element does not fit in the head, nests too deep, or is no JSON
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


def detection_problem(path: str | Path) -> str | None:
    """What was seen, when ``path`` looks like a benchmark's file but no benchmark reads it.

    Asked only after :func:`detect_benchmark` found nothing: each benchmark's
    ``near_miss`` gets the parsed document (None when it does not parse) and
    the first 64 KiB as text. Returns e.g. ``"looks like tau2 results, but
    the file is not valid JSON (...)"``, or None.
    """
    path = Path(path)
    if path.is_dir():
        return None
    got = _head(path)
    if got is None:
        return None
    raw, size = got
    if raw[:1] not in (b"{", b"["):
        return None
    if _is_jsonl_rows(raw):
        return None  # JSONL rows: read as canonical rows, row by row
    head = raw.decode("utf-8", errors="replace")
    value: Any = None
    parse_error = None
    if size <= _DOCUMENT_CHECK_LIMIT:
        try:
            value = _read_json(path)
        except DatasetError as exc:
            parse_error = exc.message
    for record in list_benchmarks():
        if record.near_miss is None:
            continue
        try:
            seen = record.near_miss(value, head)
        except Exception:  # a third party's check must not stop the others
            continue
        if seen:
            if value is None and parse_error:
                seen = f"{seen} ({parse_error})"
            return f"{seen}; pass --format {record.name} to read it as {record.title} anyway"
    return None


def _is_jsonl_rows(raw: bytes) -> bool:
    first, _, rest = raw.partition(b"\n")
    try:
        loads_text(first)
    except (ValueError, NestingTooDeep):
        return False
    return bool(rest.strip())


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
    got = _head(path)
    if got is None:
        return None
    text, size = got
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
    names = ", ".join(b.name for b in list_benchmarks())
    return (
        "this is a JSON document, not JSONL: one object over several lines; write one row "
        "per line, or a JSON array of rows, or pass --format for a benchmark file "
        f"({names})"
    )


def _read_json(path: Path) -> Any:
    try:
        with path.open("rb") as handle:
            return loads_text(handle.read().removeprefix(_BOM))
    except OSError as exc:
        raise DatasetError(f"cannot read file: {exc.strerror}", path=str(path)) from None
    except NestingTooDeep as exc:
        raise DatasetError(exc.message, path=str(path)) from None
    except ValueError as exc:
        raise DatasetError(f"invalid JSON: {exc}", path=str(path)) from None
