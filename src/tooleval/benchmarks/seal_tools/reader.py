"""Seal-Tools records and model predictions as tooleval Samples.

Seal-Tools (fairyshine/Seal-Tools, ``Seal-Tools_Dataset/``) ships reference
records, one JSON object per line::

    {"id": "test_in_domain-difficult-200", "query": "...",
     "calling": [{"api": "getQuote", "parameters": {"state": "CA"}, "responses": ["API_call_0"]},
                 {"api": "notify", "parameters": {"quote": "API_call_0"}, "responses": ["API_call_1"]}]}

A later call's parameter value may name an earlier call's ``responses``
slot (``"API_call_0"``): such a data dependency becomes an ordering
constraint (a ``before`` pair) in :class:`~tooleval.model.ExpectedTools`;
calls with no dependency between them may come in any order. Values are
kept as written (the official metric compares them as text), so a slot name
is compared as text too.

Predictions are read in the shapes the benchmark's own evaluation script
(``LLM_Evaluation/src/llm_tools/evaluation``) writes and reads, one object
per line (or one JSON array), paired with the reference by ``id`` (else by
position):

* ``{"id", "predict": [CALLS | -1, ...], "gold_data": {...}}``: the official
  ``pred_*.jsonl``; ``predict[0]`` is scored (as ``calculate_score_ToolLearning``
  does), ``-1`` means the model's output could not be parsed. The gold calls
  then come from ``gold_data.conversations[1].value`` (a Python literal, read
  with :func:`ast.literal_eval`), as the official metric reads them, even when
  a reference file is given (it then supplies the query and the pairing).
* ``{"id", "predict": [{"api", "parameters", ...}, ...]}``: the calls.
* ``{"id", "predict": "model text"}`` (or ``["model text"]``): the raw output, read as the
  benchmark's ``transform_output_format("ToolLearning", ...)`` reads it
  (:func:`parse_seal_tools_output`).

Predicted entries without an ``"api"`` key are not calls for the official
metric; they are left out of ``tools_called`` and counted in
``metadata["seal_tools"]["ignored"]`` (the per-row reason says so).

>>> ref = {"id": "x-easy-0", "query": "q", "calling": [
...     {"api": "a", "parameters": {"k": 1}, "responses": ["API_call_0"]},
...     {"api": "b", "parameters": {"v": "API_call_0"}, "responses": ["API_call_1"]}]}
>>> s = sample_from_seal_tools(ref, {"id": "x-easy-0", "predict": [[{"api": "a", "parameters": {"k": 1}}]]})
>>> s.expected_tools.before, [c.name for c in s.actual_calls()], s.category
(((0, 1),), ['a'], 'easy')
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tooleval.benchmarks._files import read_pairs
from tooleval.benchmarks._shape import paired_places
from tooleval.benchmarks.base import read_each, record_id
from tooleval.errors import FormatError
from tooleval.model import ExpectedTools, Sample, ToolCall

__all__ = [
    "load_seal_tools",
    "parse_seal_tools_output",
    "sample_from_seal_tools",
    "seal_tools_expected",
]

_START = re.compile(r"\[\s*\{\s*\"api\"", re.DOTALL)


def parse_seal_tools_output(text: str) -> list[Any] | None:
    """The call list in a model's raw output, read as Seal-Tools' evaluation reads it, or None.

    Quotes become double quotes and newlines are removed; the list starts at
    the first ``[{"api"`` and ends at its matching ``]``; it must mention
    ``api``, ``parameters`` and ``responses`` and be valid JSON. None is the
    benchmark's ``-1`` (a format failure).

    >>> parse_seal_tools_output("Sure: [{'api': 'f', 'parameters': {}, 'responses': ['API_call_0']}]")
    [{'api': 'f', 'parameters': {}, 'responses': ['API_call_0']}]
    >>> parse_seal_tools_output("I cannot help") is None
    True
    """
    text = text.replace("'", '"').replace("\n", "")
    found = _START.search(text)
    if found is None:
        return None
    start = found.start()
    depth, end = -1, -1
    for i in range(start + 1, len(text)):
        if text[i] == "[":
            depth -= 1
        elif text[i] == "]":
            depth += 1
        if depth == 0:
            end = i
            break
    # An unclosed list keeps the text up to its last character but one, as the
    # benchmark's slice text[start:-1 + 1] does; json.loads then fails on it.
    text = text[start : end + 1] if end != -1 else text[start:0]
    if not all(word in text for word in ("api", "parameters", "responses")):
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, list) else None


def _slot_names(call: Mapping[str, Any], where: str) -> list[str]:
    responses = call.get("responses", [])
    if responses is None:
        return []
    if not isinstance(responses, list) or not all(isinstance(r, str) for r in responses):
        raise FormatError(
            "expected 'responses' to be a list of slot names (text)", field=f"{where}.responses"
        )
    return list(responses)


def _uses(value: Any, slots: Mapping[str, int]) -> set[int]:
    """Indices of the calls whose response slot names appear as (parts of) ``value``."""
    found: set[int] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if item in slots:
                found.add(slots[item])
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, Mapping):
            stack.extend(item.values())
    return found


def seal_tools_expected(calling: Any, *, where: str = "calling") -> ExpectedTools:
    """The gold calls of one record, ordered only by their data dependencies.

    >>> e = seal_tools_expected([{"api": "a", "parameters": {}, "responses": ["API_call_0"]},
    ...                          {"api": "b", "parameters": {}, "responses": ["API_call_1"]}])
    >>> e.names, e.before
    (['a', 'b'], ())
    """
    if not isinstance(calling, list):
        raise FormatError(f"expected a list of calls, got {type(calling).__name__}", field=where)
    calls: list[ToolCall] = []
    slots: dict[str, int] = {}
    before: set[tuple[int, int]] = set()
    for i, call in enumerate(calling):
        here = f"{where}[{i}]"
        if not isinstance(call, Mapping):
            raise FormatError(f"expected a call object, got {type(call).__name__}", field=here)
        name = call.get("api")
        if not isinstance(name, str) or not name:
            raise FormatError("expected 'api' (the tool name, text)", field=f"{here}.api")
        params = call.get("parameters", {})
        if not isinstance(params, Mapping):
            raise FormatError(
                f"expected 'parameters' to be an object, got {type(params).__name__}",
                field=f"{here}.parameters",
            )
        for j in _uses(dict(params), slots):
            before.add((j, i))
        for slot in _slot_names(call, here):
            slots.setdefault(slot, i)
        calls.append(ToolCall(name, dict(params)))
    return ExpectedTools(tuple(calls), tuple(sorted(before)))


def _predicted_calls(value: Any, where: str) -> tuple[list[ToolCall], list[int], bool]:
    """``(calls, ignored entry indices, format_ok)`` from one prediction value."""
    if isinstance(value, str):
        parsed = parse_seal_tools_output(value)
        if parsed is None:
            return [], [], False
        value = parsed
    if value == -1:
        return [], [], False
    if not isinstance(value, list):
        raise FormatError(
            f"expected a list of calls, -1 or the model's text, got {type(value).__name__}",
            field=where,
        )
    calls: list[ToolCall] = []
    ignored: list[int] = []
    for i, entry in enumerate(value):
        if not isinstance(entry, Mapping):
            raise FormatError(
                f"expected a call object, got {type(entry).__name__}", field=f"{where}[{i}]"
            )
        if "api" not in entry:
            ignored.append(i)
            continue
        name = entry["api"]
        problem = None
        if not isinstance(name, str):
            # Kept as a call that matches no gold name, as the official comparison sees it.
            problem = f"api name is {type(name).__name__}, not text"
            name = json.dumps(name, ensure_ascii=False)
        params = entry.get("parameters", {})
        if isinstance(params, Mapping):
            call = ToolCall(name, dict(params))
        else:
            # A non-object 'parameters' counts no parameter in the official script.
            call = ToolCall(
                name,
                {},
                raw_arguments=json.dumps(params, ensure_ascii=False, default=str),
                parse_error="parameters must be an object",
            )
        if problem is not None:
            call = ToolCall(name, call.args, parse_error=problem)
        calls.append(call)
    return calls, ignored, True


def _prediction_value(row: Mapping[str, Any], where: str) -> Any:
    for key in ("predict", "prediction"):
        if key in row:
            value = row[key]
            if (
                isinstance(value, list)
                and value
                and (value[0] == -1 or isinstance(value[0], list | str))
            ):
                # The official shape: one answer (or raw text) per prompt, the first scored.
                return value[0]
            return value
    if "calling" in row:
        raise FormatError(
            "this is a reference record, not a prediction: give the reference file as the "
            "reference (--data FILE) and the model's predictions as the file to score",
            field=where,
        )
    raise FormatError("missing the prediction: expected 'predict'", field=where)


def _gold_from_official(row: Mapping[str, Any], where: str) -> list[Any]:
    gold = row.get("gold_data")
    try:
        text = gold["conversations"][1]["value"]  # type: ignore[index]
    except (TypeError, KeyError, IndexError):
        raise FormatError(
            "no reference: pass the reference file, or keep 'gold_data.conversations[1].value' "
            "in the prediction row (the official pred file has it)",
            field=f"{where}.gold_data",
        ) from None
    if not isinstance(text, str):
        raise FormatError(
            "expected the gold calls as text", field=f"{where}.gold_data.conversations[1].value"
        )
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, RecursionError, MemoryError):
        raise FormatError(
            "the gold calls are not a Python literal list",
            field=f"{where}.gold_data.conversations[1].value",
        ) from None
    out: list[Any] = json.loads(json.dumps(value))  # tuples to lists, as the official script
    return out


def _category(ident: str | None) -> str | None:
    if ident is None:
        return None
    for level in ("easy", "difficult"):
        if f"-{level}-" in ident:
            return level
    return None


def sample_from_seal_tools(
    reference: Mapping[str, Any] | None,
    prediction: Mapping[str, Any] | None = None,
    *,
    index: int | None = None,
) -> Sample:
    """One scored row: gold calls from ``reference`` (or the prediction's ``gold_data``).

    Without a prediction the sample has no ``tools_called`` (reference only).
    """
    where, pwhere = paired_places(reference, prediction, index)
    official_gold = prediction is not None and isinstance(prediction.get("gold_data"), Mapping)
    if official_gold:
        # What calculate_score_ToolLearning reads, even when a reference file is given.
        assert prediction is not None
        expected = seal_tools_expected(
            _gold_from_official(prediction, pwhere), where=f"{pwhere}.gold_data"
        )
        source = reference if reference is not None else prediction
        ident = source.get("id")
        query = reference.get("query", "") if reference is not None else ""
    elif reference is not None:
        if "calling" not in reference:
            raise FormatError("missing 'calling' (the gold calls)", field=where)
        expected = seal_tools_expected(reference["calling"], where=f"{where}.calling")
        ident = reference.get("id")
        query = reference.get("query", "")
    elif prediction is not None:
        expected = seal_tools_expected(
            _gold_from_official(prediction, pwhere), where=f"{pwhere}.gold_data"
        )
        ident = prediction.get("id")
        query = ""
    else:
        raise FormatError("a row needs a reference record or a prediction", field=where)
    ident = None if ident is None else str(ident)
    meta: dict[str, Any] = {}
    calls: list[ToolCall] | None = None
    if prediction is not None:
        calls, ignored, ok = _predicted_calls(_prediction_value(prediction, pwhere), pwhere)
        meta = {"format_ok": ok, "ignored": ignored}
    return Sample(
        input=query if isinstance(query, str) else str(query),
        tools_called=calls,
        expected_tools=expected,
        id=ident if ident is not None else (None if index is None else str(index)),
        category=_category(ident),
        metadata={"seal_tools": meta},
    )


def load_seal_tools(
    predictions: str | Path | None, *, reference: str | Path | None = None
) -> list[Sample]:
    """Samples from a predictions file and/or a reference file (JSONL or a JSON array).

    With only ``reference``: reference-only samples (no ``tools_called``).
    With only ``predictions``: each row must carry ``gold_data`` (the
    official pred file does).

    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> def write(text, name="rows.jsonl"):
    ...     return folder.joinpath(name).write_text(text) and folder / name
    >>> ref = write('{"id": "t-easy-0", "query": "q", "calling": [{"api": "a", "parameters": {}}]}', "ref.jsonl")
    >>> pred = write('{"id": "t-easy-0", "predict": [[{"api": "a", "parameters": {}}]]}', "p.jsonl")
    >>> [(s.id, [c.name for c in s.actual_calls()]) for s in load_seal_tools(pred, reference=ref)]
    [('t-easy-0', ['a'])]
    >>> import shutil; shutil.rmtree(folder)
    """
    path = str(predictions if predictions is not None else reference)
    pairs = read_pairs(predictions, reference, ident=lambda r: r.get("id"), path=path)
    # A record that cannot be read is an unreadable row with the reason; the others score.
    return read_each(
        pairs,
        lambda i, pair: sample_from_seal_tools(pair[0], pair[1], index=i),
        lambda i, pair: record_id(pair[0] if pair[0] is not None else pair[1], i, "id"),
        path=path,
    )
