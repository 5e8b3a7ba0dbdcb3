"""API-Bank graded prediction files as tooleval Samples (one gold API call per row).

API-Bank (AlibabaResearch/DAMO-ConvAI, ``api-bank/``) evaluates a model turn
by turn: at each ``{"role": "API", ...}`` item of a dialogue the model must
write one call as text, ``API-Request: [ApiName(key='value', ...)]``, which
``evaluator_by_json.py`` reads from a JSONL file of predictions keyed by
``file`` and ``id``. A *graded* file holds one JSON object per gold call:

``file``, ``id``
    the dialogue file and the sample index in it (the sample's id is
    ``"<file>#<id>"``; either may be absent). With ``dialogues=`` (the folder of
    API-Bank's dialogue JSONL files, e.g. ``lv1-lv2-samples/level-1-given-desc``)
    a row without a gold call takes it from there, indexed as API-Bank's
    ``Sample.from_chat_history`` does: two samples per API item, the API call
    at even ids, so this reads ``evaluator_by_json.py``'s own prediction files.
``ground_truth`` | ``gold`` | ``expected_output``
    the gold call: a dialogue API item (``{"api_name", "param_dict",
    "result": {"input": ...}}``; ``result.input`` is preferred, it holds the
    values typed as API-Bank compares them), an ``{"api_name",
    "param_dict"}`` object, or API-Bank's text form.
``pred`` | ``prediction`` | ``output``
    the model's output text (read as API-Bank's ``get_api_call`` and
    ``parse_api_call`` do: the first ``[Name(...)]``; values are text) or an
    object ``{"api_name", "param_dict"}`` (values as given).
``correct``, ``name_correct``, ``args_correct``, ``error_type`` (optional)
    API-Bank's verdicts; ``error_type`` is one of the evaluator's
    ``error_statistic`` keys (``API_NAME_MISMATCH``, ``INPUT_MISMATCH``, ...).
    They go to ``metadata["api_bank"]`` so agreement can be measured.

API-Bank's argument check compares the API's recorded input after the
declared type conversion, so ``"2"`` equals ``2`` and case matters: score
with ``tool_correctness`` and ``args="numeric_text"`` (what ``tooleval score
--format api-bank`` does).

>>> row = {"file": "AddAlarm-level-1-1.jsonl", "id": 4,
...        "ground_truth": {"role": "API", "api_name": "AddAlarm",
...                         "param_dict": {"token": "z9", "time": "2021-10-14 08:00:00"}},
...        "pred": "API-Request: [AddAlarm(token='z9', time='2021-10-14 08:00:00')]",
...        "correct": True}
>>> s = sample_from_apibank_row(row)
>>> s.id, str(s.actual_calls()[0]), s.metadata["api_bank"]["correct"]
('AddAlarm-level-1-1.jsonl#4', "AddAlarm(token='z9', time='2021-10-14 08:00:00')", True)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from tooleval.benchmarks._files import jsonl_records, read_text
from tooleval.benchmarks.base import read_each, record_id
from tooleval.errors import DatasetError, FormatError
from tooleval.formats.json_limits import NestingTooDeep, loads_text
from tooleval.model import AssistantMessage, ExpectedTools, Sample, ToolCall

__all__ = [
    "ERROR_TYPES",
    "load_apibank",
    "parse_apibank_call",
    "sample_from_apibank_row",
    "samples_from_apibank_rows",
]

# The evaluator's error_statistic keys and which verdict each one denies.
ERROR_TYPES: dict[str, tuple[bool | None, bool | None]] = {
    "NO_API_CALL": (False, False),
    "FAILED_PARSE_API_CALL": (False, False),
    "API_NAME_MISMATCH": (False, None),
    "INVALID_INPUT_PARAMETER": (True, False),
    "MISS_INPUT_ARGUMENT": (True, False),
    "INPUT_MISMATCH": (True, False),
    "HAS_EXCEPTION": (True, None),
    "OUTPUT_MISMATCH": (True, None),
    "KEY_ERROR": (True, None),
}

_CALL = re.compile(r"\[(\w+)\((.*)\)\]")
# One argument as API-Bank's parser reads it: quoted text (shortest, either
# quote ends it), a bracketed list kept as text, or a bare word.
_ARG = re.compile(r"(\w+)\s*=\s*['\"](.+?)['\"]|(\w+)\s*=\s*(\[.*\])|(\w+)\s*=\s*(\w+)")
_GOLD_KEYS = ("ground_truth", "gold", "expected_output")
_PRED_KEYS = ("pred", "prediction", "output")


def parse_apibank_call(text: str) -> ToolCall | None:
    """The first ``[Name(k='v', ...)]`` in ``text`` as API-Bank reads it, or None.

    Every value is text, as API-Bank's parser leaves it (its API layer then
    converts by the declared type); an argument the pattern cannot read is
    skipped, as API-Bank skips it.

    >>> str(parse_apibank_call("API-Request: [BookHotel(name='Hilton', room_count=2)]"))
    "BookHotel(name='Hilton', room_count='2')"
    >>> parse_apibank_call("no call here") is None
    True
    """
    found = _CALL.search(text)
    if found is None:
        return None
    args: dict[str, Any] = {}
    for m in _ARG.finditer(found.group(2)):
        if m.group(1):
            args[m.group(1)] = m.group(2)
        elif m.group(3):
            args[m.group(3)] = m.group(4)
        elif m.group(5):
            args[m.group(5)] = m.group(6)
    return ToolCall(found.group(1), args)


_NAME_KEYS = ("api_name", "tool_name", "name")
_ARGS_KEYS = ("param_dict", "arguments", "args", "parameters")


def _object_call(value: Mapping[str, Any], where: str) -> ToolCall:
    """A call object as graders write them: ``{api_name, param_dict}`` (API-Bank's),
    ``{tool_name | name, arguments | args | parameters}`` or OpenAI's ``{function: {...}}``;
    arguments given as a JSON string are parsed."""
    function = value.get("function")
    if isinstance(function, Mapping) and not any(k in value for k in _NAME_KEYS):
        value, where = function, f"{where}.function"
    name = next((value[k] for k in _NAME_KEYS if k in value), None)
    if not isinstance(name, str) or not name:
        raise FormatError(
            "expected the call's name (text) under 'api_name', 'tool_name' or 'name'; "
            f"the object has {_keys(value)}",
            field=where,
        )
    result = value.get("result")
    args: Any = None
    if isinstance(result, Mapping) and isinstance(result.get("input"), Mapping):
        args = result["input"]
    key = next((k for k in _ARGS_KEYS if k in value), "param_dict")
    if args is None:
        args = value.get(key)
    if isinstance(args, str):
        try:
            args = loads_text(args) if args.strip() else {}
        except (ValueError, NestingTooDeep) as exc:
            raise FormatError(
                f"the arguments are text that is not a JSON object: {exc}", field=f"{where}.{key}"
            ) from None
    if args is None:
        args = {}
    if not isinstance(args, Mapping):
        raise FormatError(
            f"expected an object of parameters, got {type(args).__name__}",
            field=f"{where}.{key}",
        )
    return ToolCall(name, dict(args))


def _keys(value: Mapping[str, Any]) -> str:
    names = [repr(k) for k in list(value)[:6]]
    return "keys " + ", ".join(names) if names else "no keys"


def _calls(value: Any, where: str) -> list[ToolCall]:
    """A list of call objects (or of API-Bank call texts)."""
    out = []
    for i, item in enumerate(value):
        at = f"{where}[{i}]"
        if isinstance(item, Mapping):
            out.append(_object_call(item, at))
        elif isinstance(item, str) and (call := parse_apibank_call(item)) is not None:
            out.append(call)
        else:
            raise FormatError(
                f"expected a call object or [Name(key='value')] text, got {type(item).__name__}",
                field=at,
            )
    return out


def _gold(row: Mapping[str, Any], where: str) -> list[ToolCall]:
    for key in _GOLD_KEYS:
        if key not in row or row[key] is None:
            continue
        value = row[key]
        if isinstance(value, Mapping):
            return [_object_call(value, f"{where}.{key}")]
        if isinstance(value, list) and value:
            return _calls(value, f"{where}.{key}")
        if isinstance(value, str):
            call = parse_apibank_call(value)
            if call is None:
                raise FormatError(
                    "no API call of the form [Name(key='value')] in the gold text",
                    field=f"{where}.{key}",
                )
            return [call]
        raise FormatError(
            "expected a call object, a list of them or text for the gold call, got "
            f"{type(value).__name__}",
            field=f"{where}.{key}",
        )
    raise FormatError(
        "missing the gold call: expected one of "
        + ", ".join(repr(k) for k in _GOLD_KEYS)
        + " (or 'file' and 'id' with the dialogue folder: dialogues= / --data DIR)",
        field=where,
    )


def _prediction(row: Mapping[str, Any], where: str) -> tuple[list[ToolCall], str]:
    for key in _PRED_KEYS:
        if key not in row:
            continue
        value = row[key]
        if value is None:
            return [], ""
        if isinstance(value, Mapping):
            return [_object_call(value, f"{where}.{key}")], ""
        if isinstance(value, list):
            return _calls(value, f"{where}.{key}"), ""
        if isinstance(value, str):
            call = parse_apibank_call(value)
            return ([] if call is None else [call]), value
        raise FormatError(
            f"expected the model's text, a call object or a list of them, got "
            f"{type(value).__name__}",
            field=f"{where}.{key}",
        )
    raise FormatError(
        "missing the prediction: expected one of " + ", ".join(repr(k) for k in _PRED_KEYS),
        field=where,
    )


def _verdicts(row: Mapping[str, Any], where: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in ("correct", "name_correct", "args_correct"):
        value = row.get(key)
        if value is not None and not isinstance(value, bool):
            raise FormatError(f"expected true or false, got {value!r}", field=f"{where}.{key}")
        out[key] = value
    error = row.get("error_type")
    if error is not None:
        if error not in ERROR_TYPES:
            raise FormatError(
                f"unknown error_type {error!r}; expected one of {', '.join(ERROR_TYPES)}",
                field=f"{where}.error_type",
            )
        name_ok, args_ok = ERROR_TYPES[error]
        out["correct"] = False if out["correct"] is None else out["correct"]
        if out["name_correct"] is None:
            out["name_correct"] = name_ok
        if out["args_correct"] is None:
            out["args_correct"] = args_ok
    elif out["correct"] is True:
        out["name_correct"] = True if out["name_correct"] is None else out["name_correct"]
        out["args_correct"] = True if out["args_correct"] is None else out["args_correct"]
    out["error_type"] = error
    return out


def sample_from_apibank_row(row: Mapping[str, Any], *, index: int | None = None) -> Sample:
    """One graded API-Bank row: expected = the gold call, actual = the model's call (if any)."""
    where = f"rows[{index}]" if index is not None else "row"
    if not isinstance(row, Mapping):
        raise FormatError(f"expected an object per row, got {type(row).__name__}", field=where)
    gold = _gold(row, where)
    calls, text = _prediction(row, where)
    file, sample_id = row.get("file"), row.get("id")
    ident: str | None
    if file is not None and sample_id is not None:
        ident = f"{file}#{sample_id}"
    elif sample_id is not None:
        ident = str(sample_id)
    else:
        ident = None if index is None else str(index)
    return Sample(
        messages=[AssistantMessage(text, tuple(calls))],
        tools_called=calls,
        expected_tools=ExpectedTools(tuple(gold)),
        id=ident,
        metadata={"api_bank": {"file": file, "id": sample_id, **_verdicts(row, where)}},
    )


def samples_from_apibank_rows(
    rows: Iterable[Any], *, dialogues: str | Path | None = None
) -> list[Sample]:
    """Every row of an already parsed graded file (gold calls from ``dialogues`` when absent).

    A row that cannot be read is an unreadable row with the reason; the others score.

    >>> [s] = samples_from_apibank_rows([{"pred": "[GetToday()]", "gold": {"api_name": "GetToday"}}])
    >>> [c.name for c in s.actual_calls()], [c.name for c in s.expected_tools.calls]
    (['GetToday'], ['GetToday'])
    """
    lookup = _DialogueGold(Path(dialogues)) if dialogues is not None else None

    def one(index: int, row: Any) -> Sample:
        gold_given = isinstance(row, Mapping) and any(row.get(k) is not None for k in _GOLD_KEYS)
        if lookup is not None and isinstance(row, Mapping) and not gold_given:
            row = {**row, "ground_truth": lookup.gold(row, f"rows[{index}]")}
        return sample_from_apibank_row(row, index=index)

    return read_each(list(rows), one, _row_id)


def _row_id(index: int, row: Any) -> str:
    if isinstance(row, Mapping):
        file, sample_id = row.get("file"), row.get("id")
        if file is not None and sample_id is not None:
            return f"{file}#{sample_id}"
    return record_id(row, index, "id")


class _DialogueGold:
    """Gold API items of API-Bank dialogue files, by (file, sample id)."""

    def __init__(self, folder: Path) -> None:
        if not folder.is_dir():
            raise DatasetError("API-Bank dialogue folder not found", path=str(folder))
        self.folder = folder
        self.items: dict[str, list[Any]] = {}

    def gold(self, row: Mapping[str, Any], where: str) -> Any:
        file, sample_id = row.get("file"), row.get("id")
        if (
            not isinstance(file, str)
            or not isinstance(sample_id, int)
            or isinstance(sample_id, bool)
        ):
            raise FormatError(
                "a row without its gold call needs 'file' (text) and 'id' (integer) to find it",
                field=where,
            )
        targets = self._targets(file)
        if not 0 <= sample_id < len(targets):
            raise FormatError(
                f"{file} has {len(targets)} samples; id {sample_id} is not one", field=f"{where}.id"
            )
        target = targets[sample_id]
        if not isinstance(target, Mapping) or target.get("role") != "API":
            raise FormatError(
                f"sample {sample_id} of {file} is a reply, not an API call (API calls have "
                "even ids)",
                field=f"{where}.id",
            )
        return target

    def _targets(self, file: str) -> list[Any]:
        if file not in self.items:
            path = self.folder / Path(file).name
            history = jsonl_records(read_text(path, what="dialogue"), path)
            targets: list[Any] = []
            for i, item in enumerate(history):
                if isinstance(item, Mapping) and item.get("role") == "API":
                    # API-Bank's Sample.from_chat_history: the call, then the turn after it.
                    targets.append(item)
                    targets.append(history[i + 1] if i + 1 < len(history) else None)
            self.items[file] = targets
        return self.items[file]


def load_apibank(path: str | Path, *, dialogues: str | Path | None = None) -> list[Sample]:
    """Every row of a graded API-Bank file: JSONL, or one JSON document.

    The document is a list of rows, one row, or an object whose rows sit in
    one list (``{"results": [...]}``, ``{"predictions": [...]}``, ...). Only
    a file that is neither is refused, saying what was seen.

    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> def write(text, name="rows.jsonl"):
    ...     return folder.joinpath(name).write_text(text) and folder / name
    >>> path = write('{"results": [{"pred": "[GetToday()]", "gold": {"api_name": "GetToday"}}]}')
    >>> [s.expected_tools.calls[0].name for s in load_apibank(path)]
    ['GetToday']
    >>> import shutil; shutil.rmtree(folder)
    """
    text = read_text(path)
    if not text.strip():
        raise DatasetError("the file is empty", path=str(path))
    try:
        document = loads_text(text)
    except NestingTooDeep as exc:
        raise DatasetError(exc.message, path=str(path)) from None
    except ValueError as whole:
        rows = _jsonl_rows(text, path, whole)
    else:
        rows = _document_rows(document, path)
    try:
        return samples_from_apibank_rows(rows, dialogues=dialogues)
    except FormatError as exc:
        raise exc.with_context(path=str(path)) from None


def _document_rows(document: Any, path: str | Path) -> list[Any]:
    """The rows of a file that is one JSON document."""
    if isinstance(document, list):
        return document
    if isinstance(document, Mapping):
        if any(k in document for k in (*_GOLD_KEYS, *_PRED_KEYS)):
            return [document]  # one row
        lists = [v for v in document.values() if isinstance(v, list) and v]
        rows = [v for v in lists if all(isinstance(r, Mapping) for r in v)]
        if len(rows) == 1:
            return rows[0]
        raise DatasetError(
            "the file is one JSON object, but not an API-Bank row and not an object holding "
            f"one list of rows (it has {_keys(document)}); expected JSONL rows, a JSON list "
            "of rows, or an object with one list of rows",
            path=str(path),
        )
    raise DatasetError(
        f"the file is one JSON {type(document).__name__}; expected JSONL rows or a JSON list "
        "of rows",
        path=str(path),
    )


def _jsonl_rows(text: str, path: str | Path, whole: ValueError) -> list[Any]:
    """The rows of a JSONL file (the file is not one JSON document: ``whole`` says why)."""
    return jsonl_records(
        text,
        path,
        invalid=lambda number, exc: (
            f"neither one JSON document ({whole}) nor JSONL (line {number}: {exc})"
        ),
    )
