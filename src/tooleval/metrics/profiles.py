"""Scoring profiles that reproduce public benchmarks' own verdicts.

* ``bfcl_ast``: the Berkeley Function Calling Leaderboard's AST check, per
  category (simple, multiple, parallel, parallel_multiple, irrelevance,
  relevance; Python, Java and JavaScript values). Reads samples built by
  :mod:`tooleval.formats.bfcl` (schemas in ``metadata["bfcl"]``).
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

from tooleval.metrics.profile_bfcl import check_answer
from tooleval.metrics.profile_tau2 import action_checks
from tooleval.model import Diagnosis, Result, Sample

__all__ = ["bfcl_ast", "bfcl_category_kind", "bfcl_language", "tau2_actions"]

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
            return _bfcl_result(
                False, "decode_error", _DECODE_ERROR_TYPE, decode_error, params, kind
            )
    verdict = check_answer(
        kind, functions or [], expected, actual, language=language, assignment=assignment
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


def tau2_actions(sample: Sample, *, empty: str = "pass") -> Result:
    """tau2-bench's action check: fraction of gold actions matched; passes when all are.

    Gold actions are ``sample.expected_tools``; each may be restricted by
    ``sample.metadata["tau2"]["compare_args"][i]`` (a list of keys, ``[]``
    for name only, None for "the keys of the predicted call", which is also
    the rule when no restriction is given). ``empty`` decides a sample with
    no gold actions: ``"pass"`` (tau2's choice) or ``"unscored"``.
    """
    params = {"empty": empty}
    if empty not in ("pass", "unscored"):
        from tooleval.errors import ConfigError

        raise ConfigError(f"empty must be 'pass' or 'unscored', got {empty!r}", field="empty")
    if sample.expected_tools is None:
        return Result.unscored("tau2_actions", "no gold actions bound for this row", params=params)
    expected = list(sample.expected_tools.calls)
    if not expected:
        if empty == "unscored":
            return Result.unscored("tau2_actions", "the task has no gold actions", params=params)
        return Result.scored("tau2_actions", 1.0, reason="no gold actions to check", params=params)
    restrictions = ((sample.metadata or {}).get("tau2") or {}).get("compare_args")
    if restrictions is not None and len(restrictions) != len(expected):
        return Result.unscored(
            "tau2_actions",
            f"metadata['tau2']['compare_args'] has {len(restrictions)} entries for "
            f"{len(expected)} gold actions",
            params=params,
        )
    actual = sample.actual_calls()
    checks = action_checks(expected, actual, compare_args=restrictions)
    matched = sum(1 for c in checks if c["matched"])
    missing = [
        {"name": expected[c["index"]].name, "args": expected[c["index"]].args, "index": c["index"]}
        for c in checks
        if not c["matched"]
    ]
    reason = f"{matched}/{len(checks)} gold actions matched"
    if missing:
        reason += "; unmatched: " + ", ".join(m["name"] for m in missing)
    return Result.scored(
        "tau2_actions",
        matched / len(checks),
        reason=reason,
        params=params,
        threshold=1.0,
        diagnosis=Diagnosis(missing=missing, details={"action_checks": checks}),
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
                    "pass",
                    "a task with no gold actions: 'pass' (tau2) or 'unscored'",
                    choices=("pass", "unscored"),
                ),
            },
            requires=("tools_called", "expected_tools"),
            needs_judge=False,
            score_sample=tau2_actions,
        )
    )


_register()
