"""``tau2_actions``: tau2-bench's per-action ``action_match``, from the calls.

Order free, many-to-one, ``compare_args`` restrictions (rules in
:mod:`tooleval.benchmarks.tau2.rules`). Reads samples built by
:mod:`tooleval.benchmarks.tau2.reader` (restrictions in ``metadata["tau2"]``).
Scores the fraction of gold actions matched and passes when all are.

>>> from tooleval.model import ExpectedTools, ToolCall
>>> gold = ToolCall("refund", {"order": "1"})
>>> tau2_actions(Sample(tools_called=[gold], expected_tools=ExpectedTools((gold,), before=()))).score
1.0
"""

from __future__ import annotations

from typing import Any

from tooleval.benchmarks.tau2.rules import action_checks
from tooleval.benchmarks.tau2.tasks import METRICS as TASK_METRICS
from tooleval.metrics._analysis import EMPTY_CHOICES, empty_result
from tooleval.model import (
    Aliases,
    Diagnosis,
    MetricInfo,
    Param,
    Result,
    Sample,
    accepts_aliases,
)

__all__ = ["METRICS", "TAU2_ALIASES", "tau2_actions"]

_TAU2_FINISHED = ("agent_stop", "user_stop")
#: tau2_actions called ``empty="perfect"`` ``"pass"`` before every metric shared one ``empty``.
TAU2_ALIASES = Aliases(values={"empty": {"pass": "perfect"}})


@accepts_aliases("tau2_actions", TAU2_ALIASES)
def tau2_actions(sample: Sample, *, empty: str = "perfect", termination: str = "tau2") -> Result:
    """tau2-bench's action check: fraction of gold actions matched; passes when all are.

    Gold actions are ``sample.expected_tools``; each may be restricted by
    ``sample.metadata["tau2"]["compare_args"][i]`` (a list of keys, ``[]``
    for name only, None for "the keys of the predicted call", which is also
    the rule when no restriction is given). ``empty`` decides a sample with
    no gold actions (calls made or not: tau2 never counts calls beyond the
    gold ones): ``"perfect"`` (1.0, tau2's choice; the former ``"pass"``),
    ``"zero"`` or ``"unscored"``.

    Read from ``metadata["tau2"]`` (as :mod:`tooleval.benchmarks.tau2.reader` fills it):

    * ``termination_reason``: with ``termination="tau2"`` (default) a
      simulation that did not end by ``agent_stop`` or ``user_stop`` (e.g.
      ``max_steps``, ``too_many_errors``) scores 0.0, as tau2's
      ``evaluate_simulation`` gives reward 0 before any check runs;
      ``"ignore"`` checks the calls anyway.
    * ``acceptable_outcomes``: alternative gold action lists; the sample
      passes when one alternative (the ``actions`` list included, when not
      empty) is fully matched, and scores the best alternative's fraction.
    * ``unknown_criteria``: evaluation-criteria fields tau2's model does not
      have; their presence makes the result unscored (never a silent pass).
    """
    name = "tau2_actions"
    params = {"empty": empty, "termination": termination}
    from tooleval.errors import ConfigError

    if empty not in EMPTY_CHOICES:
        allowed = ", ".join(repr(c) for c in EMPTY_CHOICES)
        raise ConfigError(f"empty must be one of {allowed}, got {empty!r}", field="empty")
    if termination not in ("tau2", "ignore"):
        raise ConfigError(
            f"termination must be 'tau2' or 'ignore', got {termination!r}", field="termination"
        )
    if sample.expected_tools is None:
        return Result.unscored(name, "no gold actions bound for this row", params=params)
    meta = (sample.metadata or {}).get("tau2") or {}
    ended = meta.get("termination_reason")
    if termination == "tau2" and ended is not None and ended not in _TAU2_FINISHED:
        return Result.scored(
            name,
            0.0,
            reason=f"simulation ended by {ended!r}, not by the agent or user: tau2 gives reward 0",
            params=params,
            threshold=1.0,
            diagnosis=Diagnosis(details={"termination_reason": ended}),
        )
    unknown = meta.get("unknown_criteria") or []
    if unknown:
        return Result.unscored(
            name,
            "evaluation_criteria has field(s) tau2_actions cannot check: " + ", ".join(unknown),
            params=params,
        )
    expected = list(sample.expected_tools.calls)
    restrictions = meta.get("compare_args")
    if restrictions is not None and len(restrictions) != len(expected):
        return Result.unscored(
            name,
            f"metadata['tau2']['compare_args'] has {len(restrictions)} entries for "
            f"{len(expected)} gold actions",
            params=params,
        )
    outcomes = meta.get("acceptable_outcomes")
    if outcomes:
        return _tau2_outcomes(sample, expected, restrictions, outcomes, params)
    if not expected:
        return empty_result(name, empty, "no gold actions to check", params=params)
    return _tau2_result(expected, sample.actual_calls(), restrictions, params)


def _tau2_result(
    expected: list[Any],
    actual: list[Any],
    restrictions: Any,
    params: dict[str, Any],
    details: dict[str, Any] | None = None,
    prefix: str = "",
) -> Result:
    checks = action_checks(expected, actual, compare_args=restrictions)
    matched = sum(1 for c in checks if c["matched"])
    missing = [
        {"name": expected[c["index"]].name, "args": expected[c["index"]].args, "index": c["index"]}
        for c in checks
        if not c["matched"]
    ]
    reason = f"{prefix}{matched}/{len(checks)} gold actions matched"
    if missing:
        reason += "; unmatched: " + ", ".join(m["name"] for m in missing)
    return Result.scored(
        "tau2_actions",
        matched / len(checks) if checks else 1.0,
        reason=reason,
        params=params,
        threshold=1.0,
        diagnosis=Diagnosis(missing=missing, details={"action_checks": checks, **(details or {})}),
    )


def _tau2_outcomes(
    sample: Sample,
    expected: list[Any],
    restrictions: Any,
    outcomes: list[dict[str, Any]],
    params: dict[str, Any],
) -> Result:
    """Best of the alternatives: ``actions`` (when not empty) and each acceptable outcome."""
    from tooleval.model import ToolCall

    alternatives: list[tuple[str, list[Any], Any]] = []
    if expected:
        alternatives.append(("actions", expected, restrictions))
    for k, outcome in enumerate(outcomes):
        calls = [ToolCall.from_dict(c) for c in outcome.get("actions") or []]
        alternatives.append((f"acceptable_outcomes[{k}]", calls, outcome.get("compare_args")))
    actual = sample.actual_calls()
    scored = []
    for label, calls, limits in alternatives:
        checks = action_checks(calls, actual, compare_args=limits)
        hits = sum(1 for c in checks if c["matched"])
        scored.append((hits / len(checks) if checks else 1.0, label, calls, limits))
    best = max(scored, key=lambda item: item[0])  # first of the best on ties
    summary = [{"outcome": label, "score": score} for score, label, _, _ in scored]
    return _tau2_result(
        best[2],
        actual,
        best[3],
        params,
        details={"outcome": best[1], "outcomes": summary},
        prefix=f"best of {len(scored)} acceptable outcome(s), {best[1]}: ",
    )


METRICS = (
    MetricInfo(
        name="tau2_actions",
        description="tau2-bench's per-action check: every gold action matched by some call "
        "(order free, compare_args restrictions)",
        params={
            "empty": Param(
                "perfect",
                "nothing expected (no gold actions; calls beyond them never count in "
                "tau2): perfect (1.0), tau2's own score, zero (0.0) or unscored",
                choices=EMPTY_CHOICES,
            ),
            "termination": Param(
                "tau2",
                "'tau2': a simulation not ended by agent_stop/user_stop scores 0 "
                "(tau2's rule); 'ignore': check the calls anyway",
                choices=("tau2", "ignore"),
            ),
        },
        requires=("tools_called", "expected_tools"),
        needs_judge=False,
        score_sample=tau2_actions,
        aliases=TAU2_ALIASES,
    ),
    *TASK_METRICS,
)
