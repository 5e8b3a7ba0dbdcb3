"""Make one row's values storable, and say so when that changed them.

A row is the unit of failure: nothing one agent reply holds may stop the
write of a run. The JSON serializer refuses values nested deeper than it
recurses, integers outside 64 bits and strings with lone surrogates (bytes
that were not UTF-8); PostgreSQL refuses NUL characters and values longer
than a column's width; every database has a largest value. :func:`fit_row`
walks a row's values as the store is about to write them and replaces what
cannot be stored:

- a container nested deeper than :data:`MAX_DEPTH` levels becomes the text
  ``"<depth-limited: ...>"`` (depth-limited);
- a text longer than :data:`MAX_TEXT` characters keeps its start and an
  ``"...<truncated: N characters>"`` tail (truncated);
- an integer outside 64 bits is stored as its decimal text;
- a lone surrogate becomes U+FFFD, and so does a NUL where the database
  (PostgreSQL) cannot hold one.

A row that lost structure or content (depth-limited, truncated, a number
turned into text) is stored as an error row: its ``error`` says what was
changed and where, and its results are unscored with the same reason (they
were computed from content that is no longer what is stored). A character
replaced by U+FFFD keeps the row as scored: the replacement character in the
stored text is itself the mark. Nothing is dropped silently; the other rows
of the run are stored as usual.

>>> deep = []
>>> for _ in range(MAX_DEPTH + 5):
...     deep = [deep]
>>> rows, results = fit_row({"raw_response": {"a": deep}, "error": None}, [], nul=False)
>>> rows["error"].split(";")[0]  # doctest: +ELLIPSIS
'the row could not be stored as returned: raw_response.a[0][0][0][0][0][0][0] nested deeper...'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tooleval.model import Diagnosis

__all__ = ["MAX_DEPTH", "MAX_TEXT", "fit_row"]

#: Levels of nesting kept; deeper containers are replaced (the JSON encoder stops at 254).
MAX_DEPTH = 100
#: Characters kept of one text value (the databases' own limits are near 1 GB).
MAX_TEXT = 16 * 1024 * 1024
_INT64 = (-(2**63), 2**63 - 1)
# Column widths the schema declares (PostgreSQL enforces them; SQLite does not).
_WIDTHS = {"row_id": 300, "category": 200}
_JSON_ROW_COLUMNS = ("sample", "tools_called", "raw_response")
_TEXT_ROW_COLUMNS = ("input", "output", "error", "row_id", "category")


class _Fitter:
    """One row's walk: the changes it made, named by where they were."""

    def __init__(self, *, nul: bool) -> None:
        self.nul = nul
        self.changes: list[str] = []
        self.lossy = False

    def note(self, where: str, what: str, *, lossy: bool = True) -> None:
        self.lossy = self.lossy or lossy
        if len(self.changes) < 5 and not any(c.startswith(where + " ") for c in self.changes):
            self.changes.append(f"{where} {what}")

    def text(self, value: str, where: str, width: int | None = None) -> str:
        width = MAX_TEXT if width is None else width
        if self.nul and "\x00" in value:
            value = value.replace("\x00", "\ufffd")
            self.note(where, "held NUL characters (replaced by U+FFFD)", lossy=False)
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            value = _replace_surrogates(value)
            self.note(where, "held text that is not valid UTF-8 (replaced by U+FFFD)", lossy=False)
        if len(value) > width:
            self.note(where, f"was {len(value):,} characters long (truncated to {width:,})")
            tail = f"...<truncated: {len(value):,} characters>"
            value = (
                value[: max(0, width - len(tail))] + tail if width > len(tail) else value[:width]
            )
        return value

    def value(self, value: Any, where: str, depth: int = 0) -> Any:
        if isinstance(value, str):
            return self.text(value, where)
        if isinstance(value, bool) or value is None or isinstance(value, float):
            return value
        if isinstance(value, int):
            if _INT64[0] <= value <= _INT64[1]:
                return value
            self.note(where, "held an integer outside 64 bits (stored as its decimal text)")
            return _int_text(value)
        if isinstance(value, Mapping | list | tuple):
            if depth >= MAX_DEPTH:
                self.note(where, f"nested deeper than {MAX_DEPTH} levels (depth-limited)")
                return f"<depth-limited: nested deeper than {MAX_DEPTH} levels>"
            if isinstance(value, Mapping):
                return {
                    (self.text(k, where) if isinstance(k, str) else k): self.value(
                        v, f"{where}.{k}" if depth < 8 else where, depth + 1
                    )
                    for k, v in value.items()
                }
            return [
                self.value(v, f"{where}[{i}]" if depth < 8 else where, depth + 1)
                for i, v in enumerate(value)
            ]
        return value  # other objects are written as their str() by the serializer


def _as_is(value: Any, nul: bool, depth: int) -> bool:
    """True when :meth:`_Fitter.value` would change nothing that is written: the usual row,
    checked without building the copy and the where-names the full walk makes."""
    kind = type(value)
    if kind is str:
        return _text_as_is(value, nul)
    if value is None or kind is bool or kind is float:
        return True
    if kind is int:
        return _INT64[0] <= value <= _INT64[1]
    if depth >= MAX_DEPTH:
        return False
    if kind is dict:
        return all(
            (type(k) is str and _text_as_is(k, nul)) and _as_is(v, nul, depth + 1)
            for k, v in value.items()
        )
    if kind is list:
        return all(_as_is(v, nul, depth + 1) for v in value)
    return False  # tuples (written as lists) and other types: the full walk decides


def _text_as_is(text: str, nul: bool) -> bool:
    if len(text) > MAX_TEXT or (nul and "\x00" in text):
        return False
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _replace_surrogates(text: str) -> str:
    return "".join("\ufffd" if "\ud800" <= ch <= "\udfff" else ch for ch in text)


def _int_text(value: int) -> str:
    try:
        return str(value)
    except ValueError:  # more digits than Python prints (sys.set_int_max_str_digits)
        return f"<an integer of about {value.bit_length() * 0.30103:.0f} digits>"


def fit_row(
    row: dict[str, Any], results: list[dict[str, Any]], *, nul: bool
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """``(row, results)`` as they can be stored; an error row when that changed them.

    ``row`` holds the ``rows`` table values of one row, ``results`` its
    ``results`` table values; ``nul`` says the database cannot hold NUL.
    """
    fitter = _Fitter(nul=nul)
    fitted = dict(row)
    for column in _JSON_ROW_COLUMNS:
        if column in fitted and not _as_is(fitted[column], nul, 0):
            fitted[column] = fitter.value(fitted[column], column)
    for column in _TEXT_ROW_COLUMNS:
        if isinstance(fitted.get(column), str):
            fitted[column] = fitter.text(fitted[column], column, _WIDTHS.get(column))
    fitted_results = []
    for result in results:
        where = f"results[{result.get('metric')}]"
        out = dict(result)
        out["reason"] = fitter.text(str(out.get("reason") or ""), f"{where}.reason")
        params = out.get("params") or {}
        out["params"] = (
            params if _as_is(params, nul, 0) else fitter.value(params, f"{where}.params")
        )
        diagnosis = out.get("diagnosis")
        if isinstance(diagnosis, Mapping | list) and not _as_is(diagnosis, nul, 0):
            out["diagnosis"] = fitter.value(diagnosis, f"{where}.diagnosis")
        fitted_results.append(out)
    if not fitter.lossy:
        return fitted, fitted_results
    return _as_error_row(fitted, fitted_results, fitter.changes)


def _as_error_row(
    row: dict[str, Any], results: list[dict[str, Any]], changes: list[str]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    reason = "the row could not be stored as returned: " + "; ".join(changes)
    earlier = row.get("error")
    row["error"] = f"{earlier}; {reason}" if earlier else reason
    row["failure_class"] = "error"
    row["passed"] = None
    for result in results:
        result.update(
            score=None, passed=None, reason=f"not scored: {reason}", diagnosis=Diagnosis().to_dict()
        )
    return row, results
