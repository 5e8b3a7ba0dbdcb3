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


def _object_call(value: Mapping[str, Any], where: str) -> ToolCall:
    name = value.get("api_name", value.get("name"))
    if not isinstance(name, str) or not name:
        raise FormatError("expected 'api_name' (text) in the call object", field=where)
    result = value.get("result")
    args: Any = None
    if isinstance(result, Mapping) and isinstance(result.get("input"), Mapping):
        args = result["input"]
    if args is None:
        args = value.get("param_dict", value.get("arguments", value.get("args", {})))
    if args is None:
        args = {}
    if not isinstance(args, Mapping):
        raise FormatError(
            f"expected an object of parameters, got {type(args).__name__}",
            field=f"{where}.param_dict",
        )
    return ToolCall(name, dict(args))


def _gold(row: Mapping[str, Any], where: str) -> ToolCall:
    for key in _GOLD_KEYS:
        if key not in row or row[key] is None:
            continue
        value = row[key]
        if isinstance(value, Mapping):
            return _object_call(value, f"{where}.{key}")
        if isinstance(value, str):
            call = parse_apibank_call(value)
            if call is None:
                raise FormatError(
                    "no API call of the form [Name(key='value')] in the gold text",
                    field=f"{where}.{key}",
                )
            return call
        raise FormatError(
            f"expected an object or text for the gold call, got {type(value).__name__}",
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
        if isinstance(value, str):
            call = parse_apibank_call(value)
            return ([] if call is None else [call]), value
        raise FormatError(
            f"expected the model's text or a call object, got {type(value).__name__}",
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
        expected_tools=ExpectedTools((gold,)),
        id=ident,
        metadata={"api_bank": {"file": file, "id": sample_id, **_verdicts(row, where)}},
    )


def samples_from_apibank_rows(
    rows: Iterable[Any], *, dialogues: str | Path | None = None
) -> list[Sample]:
    """Every row of an already parsed graded file (gold calls from ``dialogues`` when absent)."""
    lookup = _DialogueGold(Path(dialogues)) if dialogues is not None else None
    out = []
    for i, row in enumerate(rows):
        gold_given = isinstance(row, Mapping) and any(row.get(k) is not None for k in _GOLD_KEYS)
        if lookup is not None and isinstance(row, Mapping) and not gold_given:
            row = {**row, "ground_truth": lookup.gold(row, f"rows[{i}]")}
        out.append(sample_from_apibank_row(row, index=i))
    return out


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
            try:
                lines = path.read_text(encoding="utf-8").splitlines()
            except (OSError, UnicodeDecodeError):
                raise DatasetError("cannot read the dialogue file", path=str(path)) from None
            history = []
            for number, line in enumerate(lines, start=1):
                if line.strip():
                    try:
                        history.append(loads_text(line))
                    except (ValueError, NestingTooDeep) as exc:
                        raise DatasetError(
                            f"line {number}: invalid JSON: {exc}", path=str(path)
                        ) from None
            targets: list[Any] = []
            for i, item in enumerate(history):
                if isinstance(item, Mapping) and item.get("role") == "API":
                    # API-Bank's Sample.from_chat_history: the call, then the turn after it.
                    targets.append(item)
                    targets.append(history[i + 1] if i + 1 < len(history) else None)
            self.items[file] = targets
        return self.items[file]


def load_apibank(path: str | Path, *, dialogues: str | Path | None = None) -> list[Sample]:
    """Every row of a graded API-Bank file: JSONL, or a JSON array of the same objects."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise DatasetError(f"cannot read file: {exc.strerror}", path=str(path)) from None
    except UnicodeDecodeError:
        raise DatasetError("not UTF-8 text", path=str(path)) from None
    stripped = text.lstrip()
    rows: list[Any]
    if stripped.startswith("["):
        try:
            rows = loads_text(stripped)
        except (ValueError, NestingTooDeep) as exc:
            raise DatasetError(f"invalid JSON: {exc}", path=str(path)) from None
    else:
        rows = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                rows.append(loads_text(line))
            except (ValueError, NestingTooDeep) as exc:
                raise DatasetError(f"line {number}: invalid JSON: {exc}", path=str(path)) from None
    try:
        return samples_from_apibank_rows(rows, dialogues=dialogues)
    except FormatError as exc:
        raise exc.with_context(path=str(path)) from None
