"""NESTFUL records and model predictions as tooleval Samples, with symbolic references.

NESTFUL (IBM/NESTFUL, ``data/``) ships JSON lists of records::

    {"input": "Find flights from New York to London ...",
     "output": [{"name": "SearchAirport", "arguments": {"query": "New York"}, "label": "var1"},
                {"name": "FlightSearch", "arguments": {"originSkyId": "$var1.skyId$"}, "label": "var2"},
                {"name": "var_result", "arguments": {"flights": "$var2$"}}]}

An argument ``"$var1.skyId$"`` is the field ``skyId`` of the output of the
call labelled ``var1``; ``"$var3$"`` is a whole output. Labels are
arbitrary, so they are replaced, on both the reference and the prediction,
by the call they name: ``"$SearchAirport#1.skyId$"`` (the first of the calls
to ``SearchAirport`` in that sequence, counted in the order of their
arguments' text, so two calls of one API swapped keep their numbers). A prediction that renames ``var1`` to
``v_a`` consistently therefore gets the same arguments, and any metric with
exact argument matching (``tool_call_f1``, ``tool_correctness``) compares
references symbolically. The call's label stays in ``ToolCall.id``. A
reference whose label names no call stays as written (it matches nothing
but itself); a trailing ``$`` may be missing (NESTFUL's scorer adds it), and
references inside text (``"5 * $var1.rate$"``) are resolved too.

Data dependencies become ordering constraints: call ``j`` referring to an
earlier call ``i`` gives the ``before`` pair ``(i, j)`` of
:class:`~tooleval.model.ExpectedTools`; independent calls may come in any order.

The final ``var_result`` pseudo-call is not a tool call: its arguments (the
answer's fields, references resolved as above) are kept in
``metadata["nestful"]["expected_output"]`` (``"predicted_output"`` for a
prediction's). The calls exactly as given (labels, ``var_result``) are kept
in ``metadata["nestful"]["gold"]`` / ``["predicted"]`` for the ``nestful``
profile, which reproduces the official scorer's own grounding.

Predictions (a JSON list or JSONL), paired with the reference by
``sample_id``/``id`` when both sides have one, else by position:

* ``{"sample_id", "input", "output", "generated_text"}`` as NESTFUL's
  ``eval.py`` writes it: the text is read by :func:`parse_generated_text`
  (JSON list, ``{"tool_calls": [...]}`` or ``<tool_call>`` blocks, after
  removing ``<|...|>`` tags: the JSON-based parsers of NESTFUL's
  ``output_parsers.py``); text that does not parse is a parsing error (no
  calls, the reason says why), as in the official scorer. Convert other
  model-specific formats (Python-call text) to a call list. The item's own
  ``output`` is the gold sequence the scorer reads, so it wins over the
  reference file (which then supplies the query).
* ``{"predicted_calls" | "prediction" | "calls": [{"name", "arguments", "label"}, ...]}``.

Without a reference file, each prediction row must carry the gold calls in
``output`` (a list or its JSON text), as the official prediction files do.

>>> ref = {"input": "q", "output": [
...     {"name": "A", "arguments": {"q": "x"}, "label": "var1"},
...     {"name": "B", "arguments": {"id": "$var1.id$"}, "label": "var2"},
...     {"name": "var_result", "arguments": {"answer": "$var2$"}}]}
>>> pred = {"predicted_calls": [{"name": "A", "arguments": {"q": "x"}, "label": "first"},
...                             {"name": "B", "arguments": {"id": "$first.id$"}, "label": "second"}]}
>>> s = sample_from_nestful(ref, pred)
>>> s.expected_tools.calls[1].args == s.actual_calls()[1].args == {"id": "$A#1.id$"}
True
>>> s.expected_tools.before, s.metadata["nestful"]["expected_output"]
(((0, 1),), {'answer': '$B#1$'})
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tooleval.benchmarks._files import read_pairs
from tooleval.benchmarks._shape import paired_places
from tooleval.benchmarks.base import read_each
from tooleval.errors import FormatError
from tooleval.formats.json_limits import NestingTooDeep, loads_text
from tooleval.model import ExpectedTools, Sample, ToolCall

__all__ = [
    "RESULT_CALL",
    "load_nestful",
    "parse_generated_text",
    "resolve_references",
    "sample_from_nestful",
]

#: The name of NESTFUL's final pseudo-call (what the answer returns).
RESULT_CALL = "var_result"
_TAG = re.compile(r"<\|.*?\|>")
_FENCE = re.compile(r"```(?:json)?\s*(.*?)\s*```", re.DOTALL)
_TOOL_CALL = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)
_EMBEDDED = re.compile(r"\$([^\s$.]+)(?:\.([^$]+))?\$")
_PRED_KEYS = ("predicted_calls", "prediction", "calls")


def _reference_target(text: str) -> tuple[str, str | None] | None:
    """``(label, field)`` of a ``$label.field$`` / ``$label$`` text, or None."""
    if len(text) < 2 or not text.startswith("$"):
        return None
    body = text[1:-1] if text.endswith("$") else text[1:]
    label, dot, field = body.partition(".")
    if not label or "$" in body or any(ch.isspace() for ch in label):
        return None
    return label, (field if dot else None)


def resolve_references(
    value: Any, labels: Mapping[str, tuple[str, int, int]], found: set[int] | None = None
) -> Any:
    """``value`` with every reference replaced by the call it names (``$Name#k.field$``).

    ``labels`` maps a label to ``(name, occurrence, index)``; indices of the
    calls referred to are added to ``found``.

    >>> resolve_references(["$var1.id$", "$var9$", 3, "2 * $var1.x$"], {"var1": ("A", 1, 0)})
    ['$A#1.id$', '$var9$', 3, '2 * $A#1.x$']
    """
    if isinstance(value, str):
        if "$" not in value:
            return value
        target = _reference_target(value)
        if target is not None:
            return _resolved(target[0], target[1], labels, found) or value
        # References inside text: "5 * $var1.rate$", "$var1.a$ - $var2.a$".
        return _EMBEDDED.sub(
            lambda m: _resolved(m.group(1), m.group(2), labels, found) or m.group(0), value
        )
    if isinstance(value, list):
        return [resolve_references(v, labels, found) for v in value]
    if isinstance(value, Mapping):
        return {k: resolve_references(v, labels, found) for k, v in value.items()}
    return value


def _resolved(
    label: str,
    field: str | None,
    labels: Mapping[str, tuple[str, int, int]],
    found: set[int] | None,
) -> str | None:
    if label not in labels:
        return None
    name, occurrence, index = labels[label]
    if found is not None:
        found.add(index)
    return f"${name}#{occurrence}{'' if field is None else '.' + field}$"


def _check_calls(calls: Any, where: str) -> list[Mapping[str, Any]]:
    if not isinstance(calls, list):
        raise FormatError(f"expected a list of calls, got {type(calls).__name__}", field=where)
    for i, call in enumerate(calls):
        here = f"{where}[{i}]"
        if not isinstance(call, Mapping):
            raise FormatError(f"expected a call object, got {type(call).__name__}", field=here)
        if not isinstance(call.get("name"), str) or not call["name"]:
            raise FormatError("expected 'name' (the tool name, text)", field=f"{here}.name")
        args = call.get("arguments", call.get("parameters", {}))
        if not isinstance(args, Mapping):
            raise FormatError(
                f"expected 'arguments' to be an object, got {type(args).__name__}",
                field=f"{here}.arguments",
            )
        label = call.get("label")
        if label is not None and not isinstance(label, str):
            raise FormatError("expected 'label' to be text", field=f"{here}.label")
    return list(calls)


def _call_args(call: Mapping[str, Any]) -> Mapping[str, Any]:
    return call.get("arguments", call.get("parameters", {}))  # type: ignore[no-any-return]


def _ranks(calls: Sequence[Mapping[str, Any]]) -> list[int]:
    """Each call's number among the calls of its name, counted in the order of their
    arguments' text (references masked), so swapping two calls of one name keeps it."""
    labels = {str(c["label"]).replace("$", ""): ("*", 0, -1) for c in calls if c.get("label")}
    keys = [
        json.dumps(resolve_references(dict(_call_args(c)), labels), sort_keys=True, default=str)
        for c in calls
    ]
    by_name: dict[str, list[int]] = {}
    for i, call in enumerate(calls):
        by_name.setdefault(call["name"], []).append(i)
    rank = [0] * len(calls)
    for indices in by_name.values():
        for k, i in enumerate(sorted(indices, key=lambda i: (keys[i], i)), start=1):
            rank[i] = k
    return rank


def _symbolic(
    calls: Sequence[Mapping[str, Any]],
) -> tuple[list[ToolCall], set[tuple[int, int]], Any]:
    """Tool calls with resolved references, dependency pairs and the var_result arguments."""
    calls = [c if isinstance(c["name"], str) else {**c, "name": str(c["name"])} for c in calls]
    real = [c for c in calls if c["name"] != RESULT_CALL]
    # A label names the latest call before the reference that carries it (labels are
    # sometimes reused: glaive #94 labels two calls var1), else the last one that does.
    rank = _ranks(real)
    carriers: dict[str, list[tuple[str, int, int]]] = {}
    for i, call in enumerate(real):
        if call.get("label"):
            label = str(call["label"]).replace("$", "")
            carriers.setdefault(label, []).append((call["name"], rank[i], i))
    out: list[ToolCall] = []
    before: set[tuple[int, int]] = set()
    for j, call in enumerate(real):
        labels = {
            label: next((t for t in reversed(ts) if t[2] < j), ts[-1])
            for label, ts in carriers.items()
        }
        found: set[int] = set()
        args = resolve_references(dict(_call_args(call)), labels, found)
        before.update((i, j) for i in found if i < j)
        own = call.get("label")
        out.append(ToolCall(call["name"], args, id=None if own is None else str(own)))
    labels = {label: ts[-1] for label, ts in carriers.items()}
    result: Any = None
    for call in calls:
        if call["name"] == RESULT_CALL:
            result = resolve_references(dict(_call_args(call)), labels)
    return out, before, result


def _json(text: str) -> Any:
    try:
        return loads_text(text)
    except (ValueError, NestingTooDeep):
        try:
            return loads_text(text.replace("\n", "").replace("\\_", "_"))
        except NestingTooDeep as exc:
            raise ValueError(exc.message) from None
        except ValueError as exc:
            raise ValueError(f"not JSON: {exc}") from None


def parse_generated_text(text: str) -> list[Any]:
    """A model's text as a list of call objects, read as NESTFUL's output parsers do.

    ``<|...|>`` tags and a Markdown code fence are removed; the text is a
    JSON list of calls, ``{"tool_calls": [...]}`` (xLAM), or one call object
    per ``<tool_call>...</tool_call>`` block (Hermes; blocks that are not JSON
    are skipped, as there). Raises ValueError saying why otherwise.

    >>> parse_generated_text('<|tool_call|>[{"name": "A", "arguments": {}}]<|eom_id|>')
    [{'name': 'A', 'arguments': {}}]
    >>> parse_generated_text('<tool_call> {"name": "A", "arguments": {}} </tool_call>')
    [{'name': 'A', 'arguments': {}}]
    """
    cleaned = _TAG.sub("", text).strip()
    fenced = _FENCE.fullmatch(cleaned)
    if fenced:
        cleaned = fenced.group(1).strip()
    value: Any
    if cleaned.startswith("tool_call\n{"):
        cleaned = "<tool_call>" + cleaned[len("tool_call") :]
    blocks = _TOOL_CALL.findall(cleaned)
    if blocks:
        value = []
        for block in blocks:
            try:
                value.append(_json(block.strip()))
            except ValueError:
                continue
        if not value:
            raise ValueError("no <tool_call> block holds JSON")
    else:
        value = _json(cleaned.replace("<tool_call>", "").replace("</tool_call>", "").strip())
    if isinstance(value, Mapping) and isinstance(value.get("tool_calls"), list):
        value = value["tool_calls"]
    if not isinstance(value, list):
        raise ValueError(f"expected a JSON list of calls, got {type(value).__name__}")
    for i, call in enumerate(value):
        if not isinstance(call, Mapping) or "name" not in call:
            raise ValueError(f"call {i} is not an object with a 'name'")
        args = call.get("arguments", call.get("parameters", {}))
        if not isinstance(args, Mapping):
            raise ValueError(f"call {i}: 'arguments' is not an object")
    return value


def _gold_calls(record: Mapping[str, Any], where: str) -> list[Mapping[str, Any]]:
    if "output" not in record:
        raise FormatError("missing 'output' (the gold call sequence)", field=where)
    gold = record["output"]
    if isinstance(gold, str):
        try:
            gold = loads_text(gold)
        except NestingTooDeep as exc:
            raise FormatError(exc.message, field=f"{where}.output") from None
        except ValueError as exc:
            raise FormatError(
                f"'output' text is not JSON: {exc}", field=f"{where}.output"
            ) from None
    return _check_calls(gold, f"{where}.output")


def _predicted(row: Mapping[str, Any], where: str) -> tuple[list[Any] | None, str | None]:
    """``(calls as given, parse error)`` of one prediction row."""
    for key in _PRED_KEYS:
        if key in row:
            value = row[key]
            if isinstance(value, str):
                break
            return _check_calls(value, f"{where}.{key}"), None
    text = row.get("generated_text") if "generated_text" in row else None
    if text is None:
        for key in _PRED_KEYS:
            if isinstance(row.get(key), str):
                text = row[key]
    if text is None:
        raise FormatError(
            "missing the prediction: expected 'generated_text' (the model's text) or "
            "'predicted_calls' (a list of calls)",
            field=where,
        )
    if not isinstance(text, str):
        raise FormatError(
            f"expected 'generated_text' to be text, got {type(text).__name__}",
            field=f"{where}.generated_text",
        )
    try:
        return parse_generated_text(text), None
    except ValueError as exc:
        return None, str(exc)


def sample_from_nestful(
    reference: Mapping[str, Any] | None,
    prediction: Mapping[str, Any] | None = None,
    *,
    index: int | None = None,
    source: str | None = None,
) -> Sample:
    """One row: the gold sequence from ``reference`` (or the prediction's ``output``).

    Without a prediction the sample has no ``tools_called`` (reference only).
    """
    where, pwhere = paired_places(reference, prediction, index)
    record = reference if reference is not None else prediction
    if record is None:
        raise FormatError("a row needs a reference record or a prediction", field=where)
    own_gold = (
        prediction is not None
        and "output" in prediction
        and ("generated_text" in prediction or any(k in prediction for k in _PRED_KEYS))
    )
    if own_gold:  # the gold the official scorer reads: the item's own 'output'
        assert prediction is not None
        gold = _gold_calls(prediction, pwhere)
    else:
        gold = _gold_calls(record, where if reference is not None else pwhere)
    expected_calls, before, expected_output = _symbolic(gold)
    meta: dict[str, Any] = {"gold": gold, "expected_output": expected_output}
    calls: list[ToolCall] | None = None
    if prediction is not None:
        if (
            "output" in prediction
            and "generated_text" not in prediction
            and not any(k in prediction for k in _PRED_KEYS)
        ):
            raise FormatError(
                "this is a reference record, not a prediction: give the reference file "
                "as the reference (--data FILE) and the model's predictions as the file "
                "to score",
                field=pwhere,
            )
        predicted, error = _predicted(prediction, pwhere)
        meta["predicted"] = predicted
        meta["parse_error"] = error
        calls = []
        if predicted is not None:
            calls, _, meta["predicted_output"] = _symbolic(predicted)
    ident = _record_ident(record)
    if ident is None and index is not None:
        ident = f"{source}#{index}" if source else str(index)
    text = record.get("input", "")
    return Sample(
        input=text if isinstance(text, str) else json.dumps(text),
        tools_called=calls,
        expected_tools=ExpectedTools(tuple(expected_calls), tuple(sorted(before))),
        id=None if ident is None else str(ident),
        metadata={"nestful": meta},
    )


def _record_ident(record: Mapping[str, Any]) -> Any:
    return record.get("sample_id", record.get("id"))


def load_nestful(
    predictions: str | Path | None, *, reference: str | Path | None = None
) -> list[Sample]:
    """Samples from a predictions file and/or a reference file (JSON list or JSONL).

    Row ids are the records' ``sample_id``/``id``, else ``<file name>#<index>``.

    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> def write(text, name="rows.jsonl"):
    ...     return folder.joinpath(name).write_text(text) and folder / name
    >>> ref = write('{"sample_id": "n1", "input": "q", "output": [{"name": "f", "arguments": {}, "label": "$var_1"}]}')
    >>> [(s.id, s.tools_called) for s in load_nestful(None, reference=ref)]
    [('n1', None)]
    >>> import shutil; shutil.rmtree(folder)
    """
    named = reference if reference is not None else predictions
    pairs = read_pairs(predictions, reference, ident=_record_ident, path=named)
    source = Path(named).name  # type: ignore[arg-type]  # read_pairs refused two Nones
    # A record that cannot be read is an unreadable row with the reason; the others score.
    return read_each(
        pairs,
        lambda i, pair: sample_from_nestful(pair[0], pair[1], index=i, source=source),
        lambda i, pair: _unreadable_id(pair, i, source),
        path=str(named),
    )


def _unreadable_id(pair: tuple[Any, Any], index: int, source: str) -> str:
    record = pair[0] if pair[0] is not None else pair[1]
    ident = _record_ident(record) if isinstance(record, Mapping) else None
    return str(ident) if ident is not None else f"{source}#{index}"
