"""NESTFUL's official scores (``src/scorer.py`` of IBM/NESTFUL), reproduced.

NESTFUL's scorer first *grounds* both sequences: the ``var_result``
pseudo-call is dropped and, in every argument that starts with ``$var`` and
has a dot, each label is replaced by the name of the API it labels
(``$var1.skyId$`` becomes ``$SearchAirport.skyId$``; a whole-output
reference such as ``$var3$`` is left as written, and so is a label that does
not start with ``var``). A predicted value that starts with ``$`` but does
not end with one gets the closing ``$``. Then, over the whole file:

* **F1 of function names** (``f1_intent``): each row is a multi-label
  instance whose labels are the API names called; precision, recall and F1
  are macro-averaged over the names in the gold (scikit-learn's
  ``MultiLabelBinarizer`` fitted on the gold, ``average="macro"``; a name
  only predicted is ignored, an undefined precision counts 0).
* **F1 of parameters** (``f1_slot``): one instance per API name in the gold
  or the prediction of a row (the *last* call of a name gives its
  arguments), labels ``"key = value"`` (Python ``str`` of the value),
  macro-averaged the same way.
* **Partial sequence accuracy** (``accuracy_combined``): per row, the calls
  as ``name(k = v, ...)`` (keys sorted); when the two sequences differ in
  length they are aligned by name (a greedy walk that pairs equal names and
  pads the rest); the share of equal positions. Averaged over rows.
* **Full sequence accuracy** (``percentage_times_full_score``): the share of
  rows whose partial accuracy is 1.
* **Win rate** needs executing the predicted calls against NESTFUL's
  executable functions and their gold answers, which this release does not
  ship: it is left out.

:func:`nestful` scores one row: ``score`` is its partial sequence accuracy,
``passed`` a full match; the labels it produced go to
``diagnosis.details`` and :func:`nestful_summary` computes the corpus-level
numbers from them (the F1 values are corpus-level macro averages, not means
of rows).

>>> from tooleval.model import Sample, ToolCall
>>> gold = [ToolCall("A", {"q": "x"}), ToolCall("B", {"id": 2})]
>>> r = nestful(Sample(tools_called=[ToolCall("A", {"q": "x"})], expected_tools=gold))
>>> r.score, r.diagnosis.details["sequence"]
(0.5, {'gold': ['A(q = x)', 'B(id = 2)'], 'pred': ['A(q = x)', '']})
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tooleval.metrics._analysis import EMPTY_CHOICES, EMPTY_HELP, choice, empty_result
from tooleval.model import Diagnosis, MetricInfo, Param, Result, Sample, ToolCall

__all__ = ["METRICS", "ground_calls", "nestful", "nestful_row", "nestful_summary", "macro_prf"]

_RESULT = "var_result"
_DUMMY = '{"name": "dummy", "arguments": {}}'


def _names_label(label: str, value: str) -> bool:
    """Official rule: a ``$var...`` value with a dot whose part before the dot is ``label``."""
    if value.startswith("$var") and "." in value:
        return value.split(".", 1)[0].replace("$", "") == label
    return False


def _arguments(call: Mapping[str, Any]) -> Mapping[str, Any]:
    found: Mapping[str, Any] = (
        call["arguments"] if "arguments" in call else call.get("parameters", {})
    )
    return found


def ground_calls(calls: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Labels replaced by API names in references, ``var_result`` dropped (NESTFUL's rule).

    >>> ground_calls([{"name": "A", "arguments": {}, "label": "var1"},
    ...               {"name": "B", "arguments": {"x": "$var1.id$"}, "label": "var2"},
    ...               {"name": "var_result", "arguments": {"r": "$var2$"}}])
    [{'name': 'A', 'arguments': {}}, {'name': 'B', 'arguments': {'x': '$A.id$'}}]
    """
    labels: dict[str, Any] = {}
    for call in calls:
        if call["name"] in ("varResult", _RESULT):
            continue
        if "label" in call:
            labels[str(call["label"]).replace("$", "")] = call["name"]
    grounded = []
    for call in calls:
        if call["name"] == _RESULT:
            continue
        arguments: dict[str, Any] = {}
        for key, value in _arguments(call).items():
            for label, name in labels.items():
                if type(value) is str and _names_label(label, value):
                    value = value.replace(label, str(name))
                elif type(value) is list:
                    items = []
                    for item in value:
                        if type(item) is str and _names_label(label, item):
                            item = item.replace(label, str(name))
                        elif type(item) is dict and _names_label(label, json.dumps(item)):
                            item = json.loads(json.dumps(item).replace(label, str(name)))
                        items.append(item)
                    value = items
            arguments[key] = value
        grounded.append({"name": call["name"], "arguments": arguments})
    # The scorer passes every call through JSON text: tuples become lists, keys text.
    return [json.loads(json.dumps(c)) for c in grounded]


def _closed(value: Any) -> Any:
    if type(value) is str and value.startswith("$") and not value.endswith("$"):
        return value + "$"
    return value


def _is_dummy(call: Mapping[str, Any]) -> bool:
    return json.dumps(call) == _DUMMY


def _slot_map(calls: Sequence[Mapping[str, Any]], *, predicted: bool) -> dict[Any, list[str]]:
    out: dict[Any, list[str]] = {}
    for call in calls:
        if predicted and _is_dummy(call):
            continue
        out[call["name"]] = [
            f"{key} = {_closed(value) if predicted else value}"
            for key, value in call["arguments"].items()
        ]
    return out


def _signature(call: Mapping[str, Any], *, predicted: bool) -> str:
    pairs = sorted(
        f"{key} = {_closed(value) if predicted else value}"
        for key, value in call["arguments"].items()
    )
    return f"{call['name']}({', '.join(pairs)})"


def _align(gold: list[str], pred: list[str]) -> tuple[list[str], list[str]]:
    """NESTFUL's ``post_process_api_with_args``: pad by a greedy walk over the names."""
    if len(gold) == len(pred):
        return gold, pred
    g_names = [s.split("(", 1)[0] for s in gold]
    p_names = [s.split("(", 1)[0] for s in pred]
    g_out: list[str] = []
    p_out: list[str] = []
    i = j = 0
    while i < len(g_names) or j < len(p_names):
        if i < len(g_names) and j < len(p_names) and g_names[i] == p_names[j]:
            g_out.append(gold[i])
            p_out.append(pred[j])
            i += 1
            j += 1
        elif i < len(g_names):
            g_out.append(gold[i])
            p_out.append("")
            i += 1
        else:
            g_out.append("")
            p_out.append(pred[j])
            j += 1
    return g_out, p_out


def nestful_row(
    gold: Sequence[Mapping[str, Any]], predicted: Sequence[Mapping[str, Any]] | None
) -> dict[str, Any]:
    """Everything NESTFUL's scorer derives from one row (``predicted=None``: unparsable).

    Returns ``intent`` and ``slots`` (gold and predicted label lists, for the
    corpus F1), ``sequence`` (the aligned call signatures) and ``accuracy``
    (NaN when both sequences are empty, as scikit-learn's mean of nothing).

    >>> row = nestful_row([{"name": "A", "arguments": {"x": 1}}], [{"name": "A", "arguments": {"x": "1"}}])
    >>> row["accuracy"], row["slots"]
    (1.0, {'gold': [['x = 1']], 'pred': [['x = 1']]})
    """
    g_calls = ground_calls(gold)
    p_calls = ground_calls(predicted) if predicted is not None else []
    intent = {
        "gold": [str(c["name"]) for c in g_calls],
        "pred": [str(c["name"]) for c in p_calls if not _is_dummy(c)],
    }
    g_slots = _slot_map(g_calls, predicted=False)
    p_slots = _slot_map(p_calls, predicted=True)
    keys = list(dict.fromkeys([*g_slots, *p_slots]))
    slots = {"gold": [g_slots.get(k, []) for k in keys], "pred": [p_slots.get(k, []) for k in keys]}
    g_seq, p_seq = _align(
        [_signature(c, predicted=False) for c in g_calls],
        [_signature(c, predicted=True) for c in p_calls],
    )
    accuracy = (
        sum(a == b for a, b in zip(g_seq, p_seq, strict=True)) / len(g_seq) if g_seq else math.nan
    )
    return {
        "intent": intent,
        "slots": slots,
        "sequence": {"gold": g_seq, "pred": p_seq},
        "accuracy": accuracy,
    }


def _raw(calls: Sequence[ToolCall]) -> list[dict[str, Any]]:
    out = []
    for call in calls:
        item: dict[str, Any] = {"name": call.name, "arguments": call.args or {}}
        if call.id is not None:
            item["label"] = call.id
        out.append(item)
    return out


def nestful(sample: Sample, *, empty: str = "unscored") -> Result:
    """NESTFUL's per-row verdict: partial sequence accuracy; passes on a full match.

    ``empty`` scores a row with no gold call and nothing predicted, whose
    accuracy NESTFUL's scorer leaves undefined (NaN): ``unscored`` (default,
    left out of :func:`nestful_summary`), ``perfect`` or ``zero``.
    """
    name = "nestful"
    params = {"empty": empty}
    empty = choice(empty, "empty", EMPTY_CHOICES, metric=name)
    if sample.expected_tools is None:
        return Result.unscored(name, "no gold call sequence bound for this row", params=params)
    meta = (sample.metadata or {}).get("nestful") or {}
    gold = meta.get("gold")
    if gold is None:
        gold = _raw(sample.expected_tools.calls)
    parse_error = meta.get("parse_error")
    predicted = meta["predicted"] if "predicted" in meta else _raw(sample.actual_calls())
    row = nestful_row(gold, predicted)
    if math.isnan(row["accuracy"]):
        return empty_result(
            name,
            empty,
            "no gold calls and none predicted (NESTFUL: accuracy undefined)",
            params=params,
        )
    g_seq, p_seq = row["sequence"]["gold"], row["sequence"]["pred"]
    missing = [
        {"name": g, "args": None, "index": i}
        for i, (g, p) in enumerate(zip(g_seq, p_seq, strict=False))
        if not p
    ]
    extra = [
        {"name": p, "args": None, "index": i}
        for i, (g, p) in enumerate(zip(g_seq, p_seq, strict=False))
        if not g
    ]
    wrong = [(g, p) for g, p in zip(g_seq, p_seq, strict=False) if g and p and g != p]
    equal = sum(a == b for a, b in zip(g_seq, p_seq, strict=False))
    reason = f"{equal}/{len(g_seq)} positions of the aligned call sequence match"
    if parse_error:
        reason = f"the prediction could not be parsed ({parse_error}): no calls; " + reason
    if wrong:
        reason += f"; e.g. gold {wrong[0][0]} vs predicted {wrong[0][1]}"
    if missing:
        reason += f"; {len(missing)} gold call(s) unmatched"
    if extra:
        reason += f"; {len(extra)} extra predicted call(s)"
    details = {**row, "parse_error": parse_error}
    return Result.scored(
        name,
        row["accuracy"],
        reason=reason,
        params=params,
        diagnosis=Diagnosis(missing=missing, extra=extra, details=details),
    )


def macro_prf(
    gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]]
) -> tuple[float, float, float]:
    """Macro P/R/F1 over the labels of ``gold``, one multi-label instance per position.

    As scikit-learn computes them with a binarizer fitted on the gold:
    labels only predicted are ignored, an undefined precision is 0.

    >>> macro_prf([["a"], ["a", "b"]], [["a"], ["c"]])
    (0.5, 0.25, 0.3333333333333333)
    """
    labels = sorted({label for row in gold for label in row})
    if not labels:
        return 0.0, 0.0, 0.0
    index = {label: k for k, label in enumerate(labels)}
    tp = [0] * len(labels)
    fp = [0] * len(labels)
    fn = [0] * len(labels)
    for g_row, p_row in zip(gold, pred, strict=True):
        g_set = {index[x] for x in g_row}
        p_set = {index[x] for x in p_row if x in index}
        for k in g_set & p_set:
            tp[k] += 1
        for k in p_set - g_set:
            fp[k] += 1
        for k in g_set - p_set:
            fn[k] += 1
    precision = [t / (t + f) if t + f else 0.0 for t, f in zip(tp, fp, strict=False)]
    recall = [t / (t + f) if t + f else 0.0 for t, f in zip(tp, fn, strict=False)]
    f1 = [2 * t / (2 * t + a + b) if t else 0.0 for t, a, b in zip(tp, fp, fn, strict=False)]
    n = len(labels)
    return sum(precision) / n, sum(recall) / n, sum(f1) / n


def nestful_summary(results: Iterable[Result]) -> dict[str, Any]:
    """NESTFUL's corpus-level numbers from :func:`nestful` results (``win_rate`` left out).

    Keys as the official ``calculate_scores`` returns them (numbers here, where
    it prints three decimals): ``p_intent``, ``r_intent``, ``f1_intent``,
    ``p_slot``, ``r_slot``, ``f1_slot``, ``num_examples``,
    ``accuracy_combined`` (partial sequence accuracy), ``percentage_times_full_score``
    (full sequence accuracy), ``num_pred_examples_w_parsing_errors``.

    >>> from tooleval.model import Sample, ToolCall
    >>> s = Sample(tools_called=[ToolCall("A", {"x": 1})], expected_tools=[ToolCall("A", {"x": 1})])
    >>> nestful_summary([nestful(s)])["f1_slot"]
    1.0
    """
    intents_g: list[list[str]] = []
    intents_p: list[list[str]] = []
    slots_g: list[list[str]] = []
    slots_p: list[list[str]] = []
    accuracies: list[float] = []
    errors = 0
    for result in results:
        details = result.diagnosis.details
        if "intent" not in details:
            continue
        intents_g.append(details["intent"]["gold"])
        intents_p.append(details["intent"]["pred"])
        slots_g.extend(details["slots"]["gold"])
        slots_p.extend(details["slots"]["pred"])
        accuracies.append(details["accuracy"])
        errors += bool(details.get("parse_error"))
    p_i, r_i, f_i = macro_prf(intents_g, intents_p)
    p_s, r_s, f_s = macro_prf(slots_g, slots_p)
    count = len(accuracies)
    return {
        "p_intent": p_i,
        "r_intent": r_i,
        "f1_intent": f_i,
        "p_slot": p_s,
        "r_slot": r_s,
        "f1_slot": f_s,
        "num_examples": count,
        "accuracy_combined": sum(accuracies) / count if count else math.nan,
        "percentage_times_full_score": sum(a == 1 for a in accuracies) / count
        if count
        else math.nan,
        "win_rate": None,
        "num_pred_examples_w_parsing_errors": errors,
    }


METRICS = (
    MetricInfo(
        name="nestful",
        description="NESTFUL's official scorer: partial sequence accuracy per row (full "
        "match passes); corpus F1 of function names and parameters from nestful_summary",
        params={"empty": Param("unscored", EMPTY_HELP, choices=EMPTY_CHOICES)},
        requires=("tools_called", "expected_tools"),
        needs_judge=False,
        score_sample=nestful,
    ),
)
