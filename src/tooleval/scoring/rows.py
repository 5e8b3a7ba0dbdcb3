"""One row through the pipeline: JSONL line -> row -> Sample -> Result -> output line.

:func:`score_line` is the Python reference for one JSONL line, the function
the compiled kernel's output is compared with byte for byte (the kernel hands
it every line it does not take). Input errors raise naming the row and field;
scoring failures are unscored results (see :mod:`tooleval.scoring.policy`).

>>> from tooleval.metrics import bind
>>> line = b'{"id": "a", "tools_called": ["f"], "expected_tools": ["f"]}'
>>> score_line(bind("tool_call_f1"), 1, line)[:34]
b'{"id":"a","metric":"tool_call_f1",'
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from tooleval.errors import InputError, ToolEvalError
from tooleval.formats.missing import MISSING_CALLS, no_value
from tooleval.scoring.policy import score_sample, unreadable

__all__ = [
    "check_calls_given",
    "read_rows",
    "result_line",
    "row_id",
    "row_sample",
    "score_line",
    "score_line_metrics",
    "score_row",
    "score_rows",
]

BOM = b"\xef\xbb\xbf"

# Column names people give the agent's calls; tooleval reads them only from tools_called.
_CALL_COLUMNS = (
    "calls",
    "tool_calls",
    "actual_calls",
    "actual_tools",
    "predicted_calls",
    "predicted_tools",
    "function_calls",
    "tools_used",
    "actions",
)

_hot: list[Any] = []  # sample_from_row, orjson.dumps, its newline option: imported on first use


def _load_hot() -> list[Any]:
    # Looked up once: two import statements per row cost about a microsecond,
    # and the compiled kernel's path never needs the Python readers.
    import orjson

    from tooleval.formats import sample_from_row

    _hot[:] = [sample_from_row, orjson.dumps, orjson.OPT_APPEND_NEWLINE]
    return _hot


def read_rows(stream: Iterable[bytes], *, start: int = 1) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(row_number, row)`` for each non-blank JSONL line (numbered from ``start``).

    A line that is not JSON, not an object, or nested deeper than
    :data:`~tooleval.formats.json_limits.MAX_DEPTH` levels is an InputError
    naming the row.

    >>> list(read_rows([b'{"id": "a"}', b"", b'{"id": "b"}']))
    [(1, {'id': 'a'}), (3, {'id': 'b'})]
    """
    import orjson

    from tooleval.formats.json_limits import loads

    for number, line in enumerate(stream, start=start):
        if number == 1 and line.startswith(BOM):
            line = line[len(BOM) :]
        if not line.strip():
            continue
        try:
            row = loads(line, row=number)
        except orjson.JSONDecodeError as exc:
            hint = non_finite_hint(exc)
            if line.strip() in (b"{", b"["):
                hint = " (this looks like one JSON document spread over lines, not JSONL)"
            raise InputError(f"invalid JSON: {exc}{hint}", row=number) from None
        if not isinstance(row, dict):
            raise InputError(
                f"expected a JSON object per line, got {type(row).__name__}", row=number
            )
        yield number, row


_NON_FINITE = ("NaN", "Infinity", "-Infinity")


def non_finite_hint(exc: ValueError) -> str:
    """What to write instead, when JSON text failed at a ``NaN``/``Infinity`` token; else "".

    >>> import orjson
    >>> try:
    ...     orjson.loads(b'{"x": -Infinity}')
    ... except orjson.JSONDecodeError as exc:
    ...     print(non_finite_hint(exc))
     (NaN and Infinity are not JSON: write null, a number or a string)
    """
    doc, pos = getattr(exc, "doc", None), getattr(exc, "pos", None)
    if not isinstance(doc, str) or not isinstance(pos, int):
        return ""
    here = doc[max(pos - 1, 0) :] if pos and doc[pos - 1 : pos] == "-" else doc[pos:]
    if here.startswith(_NON_FINITE):
        return " (NaN and Infinity are not JSON: write null, a number or a string)"
    return ""


def check_calls_given(
    metric: Any, number: int, row: Mapping[str, Any], *, column: str = "tools_called"
) -> None:
    """Refuse a row that says nothing about the agent's calls, for a metric that needs them.

    Scoring it would say "the agent called nothing" for every such row: a
    silent 0 when the calls sit in a misnamed column. A ``tools_called`` with
    no value (null, an empty cell) is refused too, naming ``column`` (the file's
    column bound to it): ``[]`` says the agent called no tool.
    """
    if "tools_called" not in metric.info.requires:
        return
    given = row.get("tools_called")
    written = no_value(given)
    if written is None:
        return  # [] (or an empty conversation below): an agent that called nothing
    if no_value(row.get("messages")) is None:
        return  # the calls are read from the conversation
    if "tools_called" in row:  # null, an empty cell: a missing value is not "no calls"
        raise InputError(
            f"no value ({written}): {MISSING_CALLS}",
            row=number,
            column=column,
        )
    if "messages" in row:
        return  # an empty conversation: an agent that called nothing
    for key in row:
        if isinstance(key, str) and key.lower() in _CALL_COLUMNS:
            raise InputError(
                f"column {key!r} looks like the agent's calls, but tooleval reads them from "
                "'tools_called' (or from 'messages'); rename the column",
                row=number,
                column=key,
            )
    raise InputError(
        "no 'tools_called' or 'messages': nothing says which tools the agent called "
        '(write "tools_called": [] for a row where the agent called no tool)',
        row=number,
    )


def row_sample(metric: Any, number: int, row: Mapping[str, Any], *, max_depth: Any = None) -> Any:
    """The Sample of one parsed row, or the InputError that names its row and field.

    ``max_depth=None`` trusts a row :func:`read_rows` checked; pass
    ``max_depth=100`` for rows from elsewhere.
    """
    sample_from_row = (_hot or _load_hot())[0]
    try:
        sample = sample_from_row(row, row_number=number, max_depth=max_depth)
    except ToolEvalError as exc:
        raise exc.with_context(row=number) from None
    if sample.tools_called is None and not sample.messages:
        check_calls_given(metric, number, row)
    return sample


def row_id(sample: Any, number: int) -> str:
    """The id written for a row: its own, else its row number."""
    return sample.id if sample.id is not None else str(number)


def result_line(row_id: str, result: Any) -> bytes:
    """The output line of one result: ``{"id": ..., "metric": ..., "score": ...}`` and a newline."""
    _, dumps, newline = _hot or _load_hot()
    return dumps({"id": row_id, **result.to_dict()}, option=newline, default=str)


def score_row(metric: Any, number: int, row: Mapping[str, Any]) -> tuple[str, Any, Any]:
    """``(row id, Sample, Result)`` of one parsed row (input errors raise)."""
    sample = row_sample(metric, number, row)
    return row_id(sample, number), sample, score_sample(metric, sample)


def score_line(metric: Any, number: int, line: bytes) -> bytes:
    """The output line for one raw JSONL line numbered ``number`` (b"" for a blank line).

    The Python reference of the pipeline: what the compiled kernel's bytes
    must equal, and what scores every line the kernel hands back.
    """
    for found, row in read_rows([line], start=number):
        sample = row_sample(metric, found, row)
        return result_line(row_id(sample, found), score_sample(metric, sample))
    return b""


def score_line_metrics(
    metrics: Sequence[Any], number: int, line: bytes, indices: Iterable[int]
) -> list[bytes]:
    """The output lines of the metrics ``indices`` (in ``metrics``) for one raw JSONL line.

    The Python reference for a row scored with several metrics: the row is read
    once and checked for every metric (as :func:`score_parsed
    <tooleval.scoring.stream.score_parsed>` reads it), so a bad row raises the
    same error whichever metrics are asked for; the compiled kernel hands it
    the metrics it leaves.

    >>> from tooleval.metrics import bind
    >>> line = b'{"id": "a", "tools_called": ["f"], "expected_tools": ["f"]}'
    >>> [x[:16] for x in score_line_metrics([bind("tool_call_f1")], 1, line, [0])]
    [b'{"id":"a","metri']
    """
    for found, row in read_rows([line], start=number):
        sample = row_sample(metrics[0], found, row)
        if sample.tools_called is None and not sample.messages:
            for each in metrics[1:]:
                check_calls_given(each, found, row)
        name = row_id(sample, found)
        return [result_line(name, score_sample(metrics[i], sample)) for i in indices]
    return []


def score_rows(
    metric: Any, rows: Iterable[Mapping[str, Any]], *, strict: bool = True, start: int = 1
) -> Iterator[tuple[str, Any]]:
    """``(row id, Result)`` for each row dict, numbered from ``start``.

    ``strict=True`` raises the first input error (naming the row and field);
    ``strict=False`` turns it into that row's :func:`~tooleval.scoring.policy.unreadable`
    result, for callers whose unit of work is a row (Ray batches).

    >>> from tooleval.metrics import bind
    >>> rows = [{"id": "ok", "tools_called": ["f"], "expected_tools": ["f"]},
    ...         {"id": "bad", "tools_called": ["f"], "expected_tools": [{"name": 42}]}]
    >>> [(i, r.score) for i, r in score_rows(bind("tool_call_f1"), rows, strict=False)]
    [('ok', 1.0), ('bad', None)]
    """
    for number, row in enumerate(rows, start=start):
        try:
            if not isinstance(row, Mapping):
                raise InputError(
                    f"expected a row as a mapping, got {type(row).__name__}", row=number
                )
            sample = row_sample(metric, number, row, max_depth=100)
        except ToolEvalError as exc:
            if strict:
                raise
            given = row.get("id") if isinstance(row, Mapping) else None
            name = str(given) if given is not None else str(number)
            recorded = dict(getattr(metric, "recorded", {}) or {})
            threshold = getattr(metric, "params", {}).get("threshold")
            yield name, unreadable(metric.name, exc, params=recorded, threshold=threshold)
            continue
        yield row_id(sample, number), score_sample(metric, sample)
