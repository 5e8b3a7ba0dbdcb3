"""Seal-Tools' official metric (``calculate_score_ToolLearning``), reproduced.

The benchmark scores a whole prediction file with API-level and
parameter-level precision, recall and F1 over counts summed across rows
(corpus level), with these rules, kept here as they are:

* every predicted call that has an ``api`` counts as predicted; it is
  *correct* when some gold call has the same name, and it is compared with
  the **first** gold call of that name (two predicted calls of one name are
  both correct against a single gold call, so recall can pass 1.0);
* its parameters count as predicted when they are an object; one is correct
  when the matched gold call has the key and ``str(pred) == str(gold)``
  (so ``3`` matches ``"3"`` and ``3.0`` does not);
* order is ignored; a row whose output could not be parsed (``-1``) adds its
  gold counts and no prediction.

:func:`seal_tools` scores one row: ``score`` is the row's F1 at the chosen
``level`` (``"param"`` by default; a row with no parameters on either side
uses the API level), capped at 1.0 when the first-match rule pushes recall
past 1; ``passed`` means every count agrees at both levels. The counts go
to ``diagnosis.details["counts"]`` and :func:`seal_tools_summary` sums them
into the official corpus-level numbers, which differ from a mean of row
scores (rows with more calls weigh more).

>>> from tooleval.model import Sample, ToolCall
>>> gold = [ToolCall("a", {"x": 1, "y": "z"})]
>>> r = seal_tools(Sample(tools_called=[ToolCall("a", {"x": "1"})], expected_tools=gold))
>>> r.diagnosis.details["counts"]["correct_param"], round(r.score, 3)
(1, 0.667)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tooleval.matching.alignment import call_entry
from tooleval.metrics._analysis import EMPTY_CHOICES, EMPTY_HELP, choice, empty_result
from tooleval.model import ArgumentCheck, Diagnosis, MetricInfo, Param, Result, Sample, ToolCall

__all__ = ["METRICS", "COUNT_KEYS", "seal_tools", "seal_tools_counts", "seal_tools_summary"]

COUNT_KEYS = (
    "correct_api",
    "predict_api",
    "gold_api",
    "correct_param",
    "predict_param",
    "gold_param",
)


def seal_tools_counts(
    expected: Sequence[ToolCall], actual: Sequence[ToolCall], *, format_ok: bool = True
) -> tuple[dict[str, int], list[ArgumentCheck], list[int | None]]:
    """The official counts for one row, each compared parameter, and each call's gold index.

    ``matched[i]`` is the gold call predicted call ``i`` was compared with
    (the first of its name) or None.

    >>> counts, _, matched = seal_tools_counts([ToolCall("a", {})], [ToolCall("a", {}), ToolCall("a", {})])
    >>> counts["correct_api"], counts["gold_api"], matched
    (2, 1, [0, 0])
    """
    counts = dict.fromkeys(COUNT_KEYS, 0)
    counts["gold_api"] = len(expected)
    counts["gold_param"] = sum(len(c.args or {}) for c in expected)
    checks: list[ArgumentCheck] = []
    matched: list[int | None] = []
    if not format_ok:
        return counts, checks, matched
    first: dict[str, int] = {}
    for i, gold in enumerate(expected):
        first.setdefault(gold.name, i)
    for j, call in enumerate(actual):
        params = call.args or {}
        counts["predict_api"] += 1
        counts["predict_param"] += len(params)
        index = first.get(call.name)
        matched.append(index)
        if index is None:
            continue
        counts["correct_api"] += 1
        gold_params = expected[index].args or {}
        for key, value in params.items():
            present = key in gold_params
            ok = present and str(value) == str(gold_params[key])
            counts["correct_param"] += ok
            checks.append(
                ArgumentCheck(
                    tool=call.name,
                    key=key,
                    expected=gold_params.get(key),
                    actual=value,
                    score=1.0 if ok else 0.0,
                    expected_index=index,
                    actual_index=j,
                    matcher="str",
                    missing=not present,
                )
            )
    return counts, checks, matched


def _f1(correct: int, predicted: int, gold: int) -> float:
    if predicted == 0 and gold == 0:
        return 1.0
    if correct == 0:
        return 0.0
    precision, recall = correct / predicted, correct / gold
    return 2 * precision * recall / (precision + recall)


def _reason(
    counts: Mapping[str, int],
    matched: Sequence[int | None],
    missing: Sequence[Mapping[str, Any]],
    extra: Sequence[Mapping[str, Any]],
    *,
    format_ok: bool,
    ignored: int,
) -> str:
    """One row's counts in words, with the calls missed or extra and the entries ignored."""
    if not format_ok:
        reason = "the model's output could not be parsed (the benchmark's -1): nothing predicted"
    else:
        reason = (
            f"API {counts['correct_api']}/{counts['predict_api']} predicted correct of "
            f"{counts['gold_api']} gold; parameters {counts['correct_param']}/"
            f"{counts['predict_param']} correct of {counts['gold_param']} gold"
        )
        if missing:
            reason += "; gold calls not predicted: " + ", ".join(m["name"] for m in missing)
        if extra:
            reason += "; calls not in the gold: " + ", ".join(e["name"] for e in extra)
        duplicates = len(matched) - len(set(i for i in matched if i is not None)) - len(extra)
        if duplicates:
            reason += (
                f"; {duplicates} call(s) matched an already matched gold call (first-match rule)"
            )
    if ignored:
        reason += f"; {ignored} predicted entr(y/ies) without 'api' ignored, as the benchmark does"
    return reason


def seal_tools(sample: Sample, *, level: str = "param", empty: str = "perfect") -> Result:
    """Seal-Tools' API- and parameter-level check for one row (see the module doc).

    ``empty`` scores a row with no gold call and nothing predicted (it adds
    nothing to the benchmark's counts): ``perfect``, ``zero`` or ``unscored``.
    """
    name = "seal_tools"
    params = {"level": level, "empty": empty}
    if level not in ("api", "param"):
        from tooleval.errors import ConfigError

        raise ConfigError(f"level must be 'api' or 'param', got {level!r}", field="level")
    empty = choice(empty, "empty", EMPTY_CHOICES, metric=name)
    if sample.expected_tools is None:
        return Result.unscored(name, "no gold calls bound for this row", params=params)
    meta = (sample.metadata or {}).get("seal_tools") or {}
    format_ok = bool(meta.get("format_ok", True))
    ignored = list(meta.get("ignored") or [])
    expected = list(sample.expected_tools.calls)
    actual = sample.actual_calls()
    counts, checks, matched = seal_tools_counts(expected, actual, format_ok=format_ok)
    if not expected and not actual and format_ok:
        return empty_result(
            name,
            empty,
            "no gold calls and none predicted",
            params=params,
            diagnosis=Diagnosis(details={"counts": counts, "format_ok": format_ok}),
        )
    api_f1 = _f1(counts["correct_api"], counts["predict_api"], counts["gold_api"])
    param_f1 = _f1(counts["correct_param"], counts["predict_param"], counts["gold_param"])
    no_params = counts["predict_param"] == 0 and counts["gold_param"] == 0
    score = api_f1 if level == "api" or no_params else param_f1
    used = {i for i in matched if i is not None}
    missing = [call_entry(c, i) for i, c in enumerate(expected) if i not in used]
    extra = [
        call_entry(c, j) for j, c in enumerate(actual) if j < len(matched) and matched[j] is None
    ]
    passed = all(
        counts[f"correct_{k}"] == counts[f"predict_{k}"] == counts[f"gold_{k}"]
        for k in ("api", "param")
    )
    reason = _reason(counts, matched, missing, extra, format_ok=format_ok, ignored=len(ignored))
    details: dict[str, Any] = {
        "counts": counts,
        "format_ok": format_ok,
        "f1_api": api_f1,
        "f1_param": param_f1,
        "matched": matched,
    }
    if ignored:
        details["ignored"] = ignored
    # Built directly: ``passed`` is "every count agrees", which a capped score of 1.0
    # (recall past 1 under the first-match rule) does not imply.
    return Result(
        metric=name,
        score=min(score, 1.0),
        passed=passed,
        reason=reason,
        params=params,
        diagnosis=Diagnosis(missing=missing, extra=extra, arguments=checks, details=details),
    )


def seal_tools_summary(results: Iterable[Result]) -> dict[str, float]:
    """The official corpus-level numbers from :func:`seal_tools` results.

    Keys as ``calculate_score_ToolLearning`` writes them: ``AMOUNT`` (share
    of rows whose output parsed), ``P_api``/``R_api``/``F1_api`` and
    ``P_param``/``R_param``/``F1_param``, each present only when the
    benchmark would print it (its counts are all non-zero).

    >>> from tooleval.model import Sample, ToolCall
    >>> s = Sample(tools_called=[ToolCall("a", {"x": 1})], expected_tools=[ToolCall("a", {"x": 1})])
    >>> seal_tools_summary([seal_tools(s)])["F1_param"]
    1.0
    """
    totals = dict.fromkeys(COUNT_KEYS, 0)
    rows = parsed = 0
    for result in results:
        counts = result.diagnosis.details.get("counts")
        if counts is None:
            continue
        rows += 1
        parsed += bool(result.diagnosis.details.get("format_ok", True))
        for key in COUNT_KEYS:
            totals[key] += int(counts[key])
    out: dict[str, float] = {}
    if parsed > 0:
        out["AMOUNT"] = 1.0 * parsed / rows
    for level in ("api", "param"):
        correct, predicted, gold = (totals[f"{k}_{level}"] for k in ("correct", "predict", "gold"))
        if correct * predicted * gold > 0:
            p = 1.0 * correct / predicted
            r = 1.0 * correct / gold
            out[f"P_{level}"] = p
            out[f"R_{level}"] = r
            out[f"F1_{level}"] = 2 * p * r / (p + r)
    return out


METRICS = (
    MetricInfo(
        name="seal_tools",
        description="Seal-Tools' official check: API- and parameter-level P/R/F1 "
        "(first gold call of a name, values compared as str); row F1, corpus numbers "
        "from seal_tools_summary",
        params={
            "level": Param(
                "param",
                "row score: 'param' (parameter-level F1) or 'api' (API-level F1)",
                choices=("api", "param"),
            ),
            "empty": Param("perfect", EMPTY_HELP, choices=EMPTY_CHOICES),
        },
        requires=("tools_called", "expected_tools"),
        needs_judge=False,
        score_sample=seal_tools,
    ),
)
