"""Reading benchmark files whole: one JSON document, records from a JSON array or JSONL,
and a predictions file paired with its reference file.

Every failure is a DatasetError naming the file and saying what was seen
(not UTF-8, empty, not JSON at the position, nested too deep); a pairing
that cannot be made is a FormatError naming the file and the field.

>>> import os, tempfile
>>> with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
...     _ = f.write('[{"a": 1}]')
>>> read_document(f.name)
[{'a': 1}]
>>> os.unlink(f.name)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from tooleval.errors import DatasetError, FormatError
from tooleval.formats.json_limits import NestingTooDeep, loads_text

__all__ = [
    "convert_json_list",
    "jsonl_records",
    "pair_records",
    "read_document",
    "read_pairs",
    "read_records",
    "read_text",
]

_BOM = b"\xef\xbb\xbf"
_T = TypeVar("_T")


def read_document(path: str | Path) -> Any:
    """The one JSON document in ``path`` (a BOM allowed)."""
    try:
        data = Path(path).read_bytes().removeprefix(_BOM)
    except OSError as exc:
        raise DatasetError(f"cannot read file: {exc.strerror}", path=str(path)) from None
    if not data.strip():
        raise DatasetError("the file is empty", path=str(path))
    try:
        return loads_text(data)
    except NestingTooDeep as exc:
        raise DatasetError(exc.message, path=str(path)) from None
    except ValueError as exc:
        raise DatasetError(f"invalid JSON: {exc}", path=str(path)) from None


def convert_json_list(path: str | Path, what: str, convert: Callable[[list[Any]], _T]) -> _T:
    """``convert`` of the JSON list in ``path`` (a third party's records: runs, tasks).

    Anything but a list is a DatasetError naming the file and what was seen;
    a FormatError ``convert`` raises (which record, which field) gets the
    file's path added.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
    ...     _ = f.write('{"tasks": []}')
    >>> convert_json_list(f.name, "tau2 tasks", list)
    Traceback (most recent call last):
    tooleval.errors.DatasetError: path ...: expected a JSON list of tau2 tasks, got a JSON object with keys 'tasks'
    """
    data = read_document(path)
    if not isinstance(data, list):
        raise DatasetError(
            f"expected a JSON list of {what}, got a JSON {_kind(data)}", path=str(path)
        )
    try:
        return convert(data)
    except FormatError as exc:
        raise exc.with_context(path=str(path)) from None


def _kind(value: Any) -> str:
    if isinstance(value, Mapping):
        return "object with keys " + ", ".join(repr(k) for k in list(value)[:5])
    return type(value).__name__


def read_text(path: str | Path, *, what: str | None = None) -> str:
    """The UTF-8 text of ``path`` (a BOM dropped); ``what`` names the file's role in errors.

    >>> read_text("/nonexistent/refs.jsonl", what="reference")
    Traceback (most recent call last):
    tooleval.errors.DatasetError: path /nonexistent/refs.jsonl: cannot read the reference file: No such file or directory
    """
    the_file = "file" if what is None else f"the {what} file"
    try:
        return Path(path).read_bytes().removeprefix(_BOM).decode("utf-8")
    except OSError as exc:
        raise DatasetError(f"cannot read {the_file}: {exc.strerror}", path=str(path)) from None
    except UnicodeDecodeError:
        message = "not UTF-8 text" if what is None else f"{the_file} is not UTF-8 text"
        raise DatasetError(message, path=str(path)) from None


def _invalid_line(number: int, exc: ValueError) -> str:
    return f"line {number}: invalid JSON: {exc}"


def jsonl_records(
    text: str,
    path: str | Path,
    *,
    invalid: Callable[[int, ValueError], str] = _invalid_line,
) -> list[Any]:
    """The JSON value of every non-blank line of ``text`` (the contents of ``path``).

    A line too deeply nested or not JSON is a DatasetError naming the line;
    ``invalid(line_number, error)`` words the second.

    >>> jsonl_records('{"a": 1}\\n\\n[2]\\n', "r.jsonl")
    [{'a': 1}, [2]]
    >>> jsonl_records('{"a": 1}\\n{oops\\n', "r.jsonl")
    Traceback (most recent call last):
    tooleval.errors.DatasetError: path r.jsonl: line 2: invalid JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)
    """
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(loads_text(line))
        except NestingTooDeep as exc:
            raise DatasetError(f"line {number}: {exc.message}", path=str(path)) from None
        except ValueError as exc:
            raise DatasetError(invalid(number, exc), path=str(path)) from None
    return records


def read_records(path: str | Path, *, what: str) -> list[Any]:
    """Every record of a JSON array file or a JSONL file (blank lines skipped).

    ``what`` names the file's role in errors ("reference", "predictions").

    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> def write(text, name="rows.jsonl"):
    ...     return folder.joinpath(name).write_text(text) and folder / name
    >>> path = write('{"id": 1}\\n\\n{"id": 2}\\n')
    >>> read_records(path, what="reference")
    [{'id': 1}, {'id': 2}]
    >>> import shutil; shutil.rmtree(folder)
    """
    text = read_text(path, what=what)
    stripped = text.lstrip()
    if not stripped:
        raise DatasetError(f"the {what} file is empty", path=str(path))
    if stripped.startswith("["):
        try:
            value = loads_text(stripped)
        except NestingTooDeep as exc:
            raise DatasetError(exc.message, path=str(path)) from None
        except ValueError as exc:
            raise DatasetError(f"invalid JSON: {exc}", path=str(path)) from None
        if not isinstance(value, list):
            raise DatasetError(f"expected a JSON array of {what} records", path=str(path))
        return value
    return jsonl_records(text, path)


def pair_records(
    references: list[Any], predictions: list[Any], *, ident: Callable[[Mapping[str, Any]], Any]
) -> list[tuple[Any, Any]]:
    """Predictions in reference order: by ``ident(record)`` when every record on both sides
    has one (a mapping whose ident is not None), else by position.

    An id predicted twice, a prediction for no reference record, a reference
    record without a prediction, or (by position) unequal counts is a
    FormatError naming the field.

    >>> by_id = lambda r: r.get("id")
    >>> pair_records([{"id": 1}, {"id": 2}], [{"id": 2, "p": "b"}, {"id": 1, "p": "a"}], ident=by_id)
    [({'id': 1}, {'id': 1, 'p': 'a'}), ({'id': 2}, {'id': 2, 'p': 'b'})]
    >>> pair_records([{"id": 1}], [{"id": 1}, {"id": 3}], ident=by_id)
    Traceback (most recent call last):
    tooleval.errors.FormatError: field predictions.id: 1 prediction id(s) are not in the reference, e.g. '3'
    """
    ref_ids = [ident(r) if isinstance(r, Mapping) else None for r in references]
    pred_ids = [ident(p) if isinstance(p, Mapping) else None for p in predictions]
    if all(i is not None for i in ref_ids) and all(i is not None for i in pred_ids):
        by_id: dict[str, Any] = {}
        for k, (pred_id, pred) in enumerate(zip(pred_ids, predictions, strict=True)):
            key = str(pred_id)
            if key in by_id:
                raise FormatError(f"id {key!r} is predicted twice", field=f"predictions[{k}].id")
            by_id[key] = pred
        known = {str(i) for i in ref_ids}
        unknown = [k for k in by_id if k not in known]
        if unknown:
            raise FormatError(
                f"{len(unknown)} prediction id(s) are not in the reference, e.g. {unknown[0]!r}",
                field="predictions.id",
            )
        absent = [str(i) for i in ref_ids if str(i) not in by_id]
        if absent:
            raise FormatError(
                f"{len(absent)} reference record(s) have no prediction, e.g. {absent[0]!r} "
                "(score a reference file that holds only the predicted records)",
                field="predictions.id",
            )
        return [(r, by_id[str(i)]) for r, i in zip(references, ref_ids, strict=True)]
    if len(references) != len(predictions):
        raise FormatError(
            f"{len(predictions)} predictions for {len(references)} reference records; without "
            "ids on both sides they are paired by position",
            field="predictions",
        )
    return list(zip(references, predictions, strict=True))


def read_pairs(
    predictions: str | Path | None,
    reference: str | Path | None,
    *,
    ident: Callable[[Mapping[str, Any]], Any],
    path: str | Path | None,
) -> list[tuple[Any, Any]]:
    """(reference record, prediction) pairs from a predictions file and/or a reference file.

    With one file only, the other side of each pair is None; with both, they
    are paired by :func:`pair_records`. ``path`` is the file a pairing error
    names.

    >>> read_pairs(None, None, ident=lambda r: r.get("id"), path="p.jsonl")
    Traceback (most recent call last):
    tooleval.errors.FormatError: field --data: give a predictions file, a reference file or both
    """
    if predictions is None and reference is None:
        raise FormatError("give a predictions file, a reference file or both", field="--data")
    refs = read_records(reference, what="reference") if reference is not None else None
    preds = read_records(predictions, what="predictions") if predictions is not None else None
    if refs is None:
        return [(None, p) for p in preds or ()]
    if preds is None:
        return [(r, None) for r in refs]
    try:
        return pair_records(refs, preds, ident=ident)
    except FormatError as exc:
        raise exc.with_context(path=str(path)) from None
