"""Scoring profiles that reproduce public benchmarks' own verdicts.

* ``bfcl_ast``: the Berkeley Function Calling Leaderboard's AST check, per
  category (simple, multiple, parallel, parallel_multiple, irrelevance,
  relevance; Python, Java and JavaScript values). Reads samples built by
  :mod:`tooleval.formats.bfcl` (schemas in ``metadata["bfcl"]``).
* ``tau_bench_actions``: tau-bench's ``r_actions`` predicted from the calls
  (state-changing calls as a multiset; rules in ``profile_tau_bench.py``).
* ``tau2_actions``: tau2-bench's per-action ``action_match`` (order free,
  many-to-one, ``compare_args`` restrictions). Reads samples built by
  :mod:`tooleval.formats.tau` (restrictions in ``metadata["tau2"]``).

Both return 1.0/0.0-style results (``tau2_actions`` scores the fraction of
gold actions matched and passes when all are) and register themselves with
:mod:`tooleval.metrics.registry` on import (the registry imports this module
on first use).

>>> from tooleval.model import Sample, ToolCall
>>> s = Sample(tools_called=[], category="irrelevance", expected_tools=[])
>>> bfcl_ast(s).passed
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooleval.metrics._analysis import EMPTY_CHOICES, EMPTY_HELP, empty_result
from tooleval.metrics.profile_bfcl import check_answer
from tooleval.metrics.profile_tau2 import action_checks
from tooleval.metrics.profile_tau_bench import (
    DOMAINS,
    SHARED_TOOLS,
    compare_writes,
    domain_tools,
    infer_domain,
)
from tooleval.model import Aliases, Diagnosis, Result, Sample, accepts_aliases

__all__ = [
    "TAU2_ALIASES",
    "bfcl_ast",
    "bfcl_category_kind",
    "bfcl_language",
    "tau2_actions",
    "tau_bench_actions",
]

_DECODE_ERROR_TYPE = "ast_decoder:decoder_failed"


def bfcl_category_kind(category: str) -> str:
    """How BFCL checks a category, read from its name the way BFCL does.

    >>> [bfcl_category_kind(c) for c in ("live_parallel_multiple", "simple_java", "live_relevance")]
    ['parallel_multiple', 'simple', 'relevance']
    """
    if "irrelevance" in category:
        return "irrelevance"
    if "relevance" in category:
        return "relevance"
    if "parallel_multiple" in category:
        return "parallel_multiple"
    if "parallel" in category:
        return "parallel"
    if "multiple" in category:
        return "multiple"
    return "simple"


def bfcl_language(category: str) -> str:
    """``java``, ``javascript`` or ``python`` for a BFCL category name."""
    if category.endswith("javascript"):
        return "javascript"
    if category.endswith("java"):
        return "java"
    return "python"


def bfcl_ast(
    sample: Sample,
    *,
    category: str | None = None,
    assignment: str = "greedy",
) -> Result:
    """BFCL's AST verdict for one sample: 1.0 pass, 0.0 fail.

    ``category`` defaults to ``sample.category``. ``assignment`` is
    ``"greedy"`` (BFCL's pairing of parallel calls, first fit wins) or
    ``"optimal"`` (passes whenever some pairing of calls works).
    The diagnosis ``details`` hold ``error`` (short code such as
    ``value_error``, ``missing_required``, ``wrong_count``) and
    ``bfcl_error_type`` (BFCL's own label).
    """
    params = {"category": category, "assignment": assignment}
    name = "bfcl_ast"
    if assignment not in ("greedy", "optimal"):
        from tooleval.errors import ConfigError

        raise ConfigError(
            f"assignment must be 'greedy' or 'optimal', got {assignment!r}", field="assignment"
        )
    category = category or sample.category
    if not category:
        return Result.unscored(
            name, "no BFCL category: set sample.category or pass category=", params=params
        )
    params["category"] = category
    kind = bfcl_category_kind(category)
    meta = (sample.metadata or {}).get("bfcl") or {}
    language = meta.get("language") or bfcl_language(category)
    actual = sample.actual_calls()
    decode_error = meta.get("decode_error") or next(
        (f"{c.name}: {c.parse_error}" for c in actual if c.parse_error), None
    )
    if decode_error:
        actual = []
    expected: Sequence[Any] = ()
    functions = meta.get("functions")
    if kind not in ("irrelevance", "relevance"):
        if sample.expected_tools is None:
            return Result.unscored(
                name, f"no expected calls for BFCL category {category}", params=params
            )
        if functions is None:
            return Result.unscored(
                name,
                "BFCL type rules need the function schemas in metadata['bfcl']['functions']",
                params=params,
            )
        expected = sample.expected_tools.calls
        if decode_error:
            error_type = meta.get("decode_error_type") or _DECODE_ERROR_TYPE
            return _bfcl_result(False, "decode_error", error_type, decode_error, params, kind)
    verdict = check_answer(
        kind,
        functions or [],
        expected,
        actual,
        language=language,
        assignment=assignment,
        names=meta.get("names") or "either",
    )
    if verdict.passed:
        reason = {
            "irrelevance": "no call, as expected",
            "relevance": f"made {len(actual)} call(s), as expected",
        }.get(kind, "every call matches the possible answer")
        return _bfcl_result(True, None, None, reason, params, kind)
    return _bfcl_result(
        False, verdict.error, verdict.bfcl_error_type, verdict.detail, params, kind, verdict.param
    )


def _bfcl_result(
    passed: bool,
    error: str | None,
    bfcl_error_type: str | None,
    reason: str,
    params: dict[str, Any],
    kind: str,
    param: str | None = None,
) -> Result:
    details: dict[str, Any] = {"kind": kind, "error": error, "bfcl_error_type": bfcl_error_type}
    if param is not None:
        details["param"] = param
    text = reason if passed else f"{error}: {reason}"
    return Result.scored(
        "bfcl_ast",
        1.0 if passed else 0.0,
        reason=text,
        params=params,
        diagnosis=Diagnosis(details=details),
    )


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

    Read from ``metadata["tau2"]`` (as :mod:`tooleval.formats.tau` fills it):

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


def tau_bench_actions(
    sample: Sample, *, domain: str | None = None, empty: str = "perfect"
) -> Result:
    """tau-bench's ``r_actions`` predicted from the calls: 1.0 when the writes agree.

    The agent's state-changing calls (read-only tools left out, calls the
    tool answered with ``Error`` dropped) must equal the gold state-changing
    actions as a multiset, arguments compared as tau-bench's database hash
    sees them (see :mod:`tooleval.metrics.profile_tau_bench`). ``domain`` is
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
        return empty_result(name, empty, "no gold actions and no calls", params=params)
    meta = (sample.metadata or {}).get("tau_bench") or {}
    chosen = (
        domain
        or (sample.category if sample.category in DOMAINS else None)
        or (meta.get("domain") if meta.get("domain") in DOMAINS else None)
        or infer_domain([c.name for c in expected + actual])
    )
    if chosen is None and all(c.name in SHARED_TOOLS for c in expected + actual):
        chosen = "shared"  # only tools both domains have, all read-only: either rule agrees
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


def _register() -> None:
    """Describe both profiles to the metric registry (which imports this module lazily)."""
    from tooleval.metrics.registry import MetricInfo, Param, register_metric

    register_metric(
        MetricInfo(
            name="bfcl_ast",
            description="BFCL's AST verdict per category (simple, multiple, parallel, "
            "parallel_multiple, irrelevance, relevance; Python/Java/JavaScript values)",
            params={
                "category": Param(None, "BFCL category; default: the sample's category"),
                "assignment": Param(
                    "greedy",
                    "pairing of parallel calls: 'greedy' (BFCL) or 'optimal'",
                    choices=("greedy", "optimal"),
                ),
            },
            requires=("tools_called", "expected_tools", "category"),
            needs_judge=False,
            score_sample=bfcl_ast,
        )
    )
    register_metric(
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
        )
    )
    register_metric(
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
        )
    )


_register()
