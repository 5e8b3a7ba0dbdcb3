"""Reading benchmark files whole: one JSON document, or records from a JSON array or JSONL.

Every failure is a DatasetError naming the file and saying what was seen
(not UTF-8, empty, not JSON at the position, nested too deep).

>>> import os, tempfile
>>> with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
...     _ = f.write('[{"a": 1}]')
>>> read_document(f.name)
[{'a': 1}]
>>> os.unlink(f.name)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tooleval.errors import DatasetError
from tooleval.formats.json_limits import NestingTooDeep, loads_text

__all__ = ["read_document", "read_records"]

_BOM = b"\xef\xbb\xbf"


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


def read_records(path: str | Path, *, what: str) -> list[Any]:
    """Every record of a JSON array file or a JSONL file (blank lines skipped).

    ``what`` names the file's role in errors ("reference", "predictions").
    """
    try:
        text = Path(path).read_bytes().removeprefix(b"\xef\xbb\xbf").decode("utf-8")
    except OSError as exc:
        raise DatasetError(f"cannot read the {what} file: {exc.strerror}", path=str(path)) from None
    except UnicodeDecodeError:
        raise DatasetError(f"the {what} file is not UTF-8 text", path=str(path)) from None
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
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(loads_text(line))
        except NestingTooDeep as exc:
            raise DatasetError(f"line {number}: {exc.message}", path=str(path)) from None
        except ValueError as exc:
            raise DatasetError(f"line {number}: invalid JSON: {exc}", path=str(path)) from None
    return records
