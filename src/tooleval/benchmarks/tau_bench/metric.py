"""``tau_bench_actions``: tau-bench's ``r_actions`` predicted from the calls.

State-changing calls compared as a multiset, as tau-bench's database hash
sees them (rules in :mod:`tooleval.benchmarks.tau_bench.rules`).
"""

from __future__ import annotations

from typing import Any

from tooleval.benchmarks.tau_bench.rules import (
    DOMAINS,
    SHARED_TOOLS,
    compare_writes,
    domain_tools,
    infer_domain,
)
from tooleval.metrics._analysis import EMPTY_CHOICES, EMPTY_HELP, empty_result
from tooleval.model import Diagnosis, MetricInfo, Param, Result, Sample

__all__ = ["METRICS", "domain_of", "tau_bench_actions"]


def tau_bench_actions(
    sample: Sample, *, domain: str | None = None, empty: str = "perfect"
) -> Result:
    """tau-bench's ``r_actions`` predicted from the calls: 1.0 when the writes agree.

    The agent's state-changing calls (read-only tools left out, calls the
    tool answered with ``Error`` dropped) must equal the gold state-changing
    actions as a multiset, arguments compared as tau-bench's database hash
    sees them (see :mod:`tooleval.benchmarks.tau_bench.rules`). ``domain`` is
    ``airline`` or ``retail``; by default the sample's category,
    ``metadata["tau_bench"]["domain"]``, or the tool names tell. ``empty``
    decides a row with no gold actions and no calls (``perfect``: 1.0, as
    tau-bench's equal hashes give; ``zero``; ``unscored``).

    >>> from tooleval.model import ExpectedTools, ToolCall
    >>> gold = ToolCall("cancel_pending_order", {"order_id": "#W1", "reason": "no longer needed"})
    >>> s = Sample(tools_called=[ToolCall("find_user_id_by_email", {"email": "a@b"}), gold],
    ...            expected_tools=ExpectedTools((gold,)))
    >>> tau_bench_actions(s).score
    1.0
    """
    name = "tau_bench_actions"
    params: dict[str, Any] = {"domain": domain, "empty": empty}
    from tooleval.errors import ConfigError

    if domain is not None and domain not in DOMAINS:
        raise ConfigError(
            f"domain must be one of {', '.join(DOMAINS)} (or null), got {domain!r}",
            field="domain",
        )
    if empty not in EMPTY_CHOICES:
        allowed = ", ".join(repr(c) for c in EMPTY_CHOICES)
        raise ConfigError(f"empty must be one of {allowed}, got {empty!r}", field="empty")
    if sample.expected_tools is None:
        return Result.unscored(name, "no gold actions bound for this row", params=params)
    expected = list(sample.expected_tools.calls)
    actual = sample.actual_calls()
    if not expected and not actual:
        found = empty_result(name, empty, "no gold actions and no calls", params=params)
        found.diagnosis.details["grader"] = "calls"
        return found
    chosen = domain_of(sample, domain, expected + actual)
    if chosen is None:
        return Result.unscored(
            name,
            "cannot tell the tau-bench domain from the tool names; pass domain='airline' "
            "or domain='retail'",
            params=params,
        )
    strange = sorted({c.name for c in expected if c.name not in domain_tools(chosen)})
    if strange:
        return Result.unscored(
            name,
            f"gold action(s) {', '.join(strange)} are not tau-bench {chosen} tools; "
            "pass domain= if the domain was guessed wrong",
            params=params,
        )
    return _verdict(name, params, expected, actual, chosen)


def domain_of(sample: Sample, domain: str | None, calls: list[Any]) -> str | None:
    """The domain given, else the sample's category or metadata, else the tool names'."""
    meta = (sample.metadata or {}).get("tau_bench") or {}
    chosen = (
        domain
        or (sample.category if sample.category in DOMAINS else None)
        or (meta.get("domain") if meta.get("domain") in DOMAINS else None)
        or infer_domain([c.name for c in calls])
    )
    if chosen is None and all(c.name in SHARED_TOOLS for c in calls):
        chosen = "shared"  # only tools both domains have, all read-only: either rule agrees
    return chosen


def _verdict(
    name: str, params: dict[str, Any], expected: list[Any], actual: list[Any], chosen: str
) -> Result:
    """The writes compared as tau-bench's hash sees them, with the reason and diagnosis."""
    failed = [c.is_error or str(c.result).startswith("Error") for c in actual]
    outcome = compare_writes(expected, actual, domain=chosen, failed=failed)
    missing = [
        {"name": expected[i].name, "args": expected[i].args, "index": i} for i in outcome["missing"]
    ]
    extra = [{"name": actual[i].name, "args": actual[i].args, "index": i} for i in outcome["extra"]]
    reason = (
        f"{outcome['actual_writes']} effective write(s) vs {outcome['gold_writes']} gold "
        f"write(s) in {chosen}"
    )
    if missing:
        reason += "; missing: " + ", ".join(m["name"] for m in missing)
    if extra:
        reason += "; extra: " + ", ".join(e["name"] for e in extra)
    if outcome["errored_writes"]:
        reason += f"; {len(outcome['errored_writes'])} write(s) answered with an error, ignored"
    details = {
        "grader": "calls",
        "domain": chosen,
        **{k: v for k, v in outcome.items() if k not in ("missing", "extra")},
    }
    return Result.scored(
        name,
        1.0 if outcome["matched"] else 0.0,
        reason=reason,
        params=params,
        diagnosis=Diagnosis(missing=missing, extra=extra, details=details),
    )


METRICS = (
    MetricInfo(
        name="tau_bench_actions",
        description="tau-bench's r_actions from the calls: the effective state-changing "
        "calls equal the gold ones (read-only tools and errored calls left out, "
        "sorted lists as multisets)",
        params={
            "domain": Param(
                None,
                "tau-bench domain 'airline' or 'retail'; null: the row's category, "
                "metadata or tool names",
                choices=(None, *DOMAINS),
            ),
            "empty": Param("perfect", EMPTY_HELP, choices=EMPTY_CHOICES),
        },
        requires=("tools_called", "expected_tools"),
        needs_judge=False,
        score_sample=tau_bench_actions,
    ),
)
