"""``bfcl_ast``: the Berkeley Function Calling Leaderboard's AST verdict, per category.

Categories simple, multiple, parallel, parallel_multiple, irrelevance and
relevance; Python, Java and JavaScript values. Reads samples built by
:mod:`tooleval.benchmarks.bfcl.reader` (schemas in ``metadata["bfcl"]``);
the rules are in :mod:`tooleval.benchmarks.bfcl.checker`. :data:`METRICS`
declares it to the registry through the BFCL :class:`~tooleval.benchmarks.Benchmark`.

>>> from tooleval.model import Sample, ToolCall
>>> s = Sample(tools_called=[], category="irrelevance", expected_tools=[])
>>> bfcl_ast(s).passed
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooleval.benchmarks.bfcl.checker import check_answer
from tooleval.model import Diagnosis, MetricInfo, Param, Result, Sample

__all__ = ["METRICS", "bfcl_ast", "bfcl_category_kind", "bfcl_language"]

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
    meta = (sample.metadata or {}).get("bfcl") or {}
    if "multi_turn" in meta:  # decided by replay on BFCL's simulated APIs
        from tooleval.benchmarks.bfcl.multi_turn import multi_turn_result

        turns = meta["multi_turn"]
        return multi_turn_result(
            turns["entry"],
            turns["ground_truth"],
            turns["result"],
            mode=turns["mode"],
            metric=name,
            params=params,
        )
    kind = bfcl_category_kind(category)
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


def bfcl_multi_turn(sample: Sample) -> Result:
    """BFCL's multi-turn verdict on a row run live (``metadata.bfcl.multi_turn``): 1.0 pass, 0.0 fail.

    ``tooleval run`` with the environment ``tooleval.serving.bfcl:multi_turn``
    puts the entry, its ground truth and the model's result there; a row
    without them is unscored, saying why.
    """
    from tooleval.benchmarks.bfcl.multi_turn import multi_turn_result

    meta = (sample.metadata or {}).get("bfcl")
    turns = meta.get("multi_turn") if isinstance(meta, dict) else None
    if not isinstance(turns, dict) or not {"entry", "ground_truth", "result"} <= set(turns):
        live = meta.get("live") if isinstance(meta, dict) else None
        why = live.get("not_graded") if isinstance(live, dict) else None
        if why:
            reason = f"not graded: {why}"
        elif isinstance((sample.metadata or {}).get("episode"), dict):
            reason = (
                "an agent served over MCP/HTTP: tooleval recorded its calls (metadata.episode) "
                "but not BFCL's turns, which BFCL's checker reads turn by turn; run the entries "
                "through an openai connector for BFCL's verdict"
            )
        else:
            reason = (
                "no BFCL multi-turn episode on this row (run a multi-turn question file with "
                "the environment tooleval.serving.bfcl:multi_turn)"
            )
        return Result.unscored("bfcl_multi_turn", reason)
    return multi_turn_result(
        turns["entry"],
        turns["ground_truth"],
        turns["result"],
        mode=str(turns.get("mode") or "fc"),
        metric="bfcl_multi_turn",
    )


METRICS = (
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
    ),
    MetricInfo(
        name="bfcl_multi_turn",
        description="BFCL's multi-turn verdict on an entry run live (tooleval run with the "
        "environment tooleval.serving.bfcl:multi_turn): state and execution checks per turn",
        params={},
        requires=("tools_called",),
        needs_judge=False,
        score_sample=bfcl_multi_turn,
    ),
)
