"""Registers the deterministic metrics (imported by the registry on first use).

Each metric gets a sample form that reads its inputs from a
:class:`~tooleval.model.Sample`: the expected tools bound for the row and
every call the agent made (``Sample.actual_calls()``), or the final output.
"""

from __future__ import annotations

import contextlib
from typing import Any

from tooleval.matching.config import resolve_comparator
from tooleval.metrics import correctness, output, trajectory
from tooleval.metrics._analysis import EMPTY_CHOICES, EMPTY_HELP, ORDERS
from tooleval.metrics.accuracy import tool_call_accuracy
from tooleval.metrics.correctness import EXTRA_CALLS, EXTRA_KEYS, tool_correctness
from tooleval.metrics.f1 import tool_call_f1
from tooleval.metrics.output import MESSAGE_SCOPES, REQUIRE, agent_texts, output_contains
from tooleval.metrics.registry import MetricInfo, Param, register_metric
from tooleval.metrics.trajectory import COVERAGES, trajectory_match
from tooleval.model import Result, Sample

__all__: list[str] = []

_ARGS_HELP = (
    "argument matcher: a name (exact, normalized, numeric, similarity, levenshtein, "
    "jaro_winkler, any_of, ignore) or a config {default, keys, tools} (see docs/metrics.md)"
)
_CALLS = ("tools_called", "expected_tools")


def _empty() -> Param:
    return Param("perfect", EMPTY_HELP, choices=EMPTY_CHOICES)


def _prepare_args(params: dict[str, Any]) -> dict[str, Any]:
    """Resolve the ``args`` matcher spec once per bound metric instead of once per row.

    A spec that does not resolve is left as given, so each row raises the
    same error it always did.
    """
    with contextlib.suppress(Exception):
        params["args"] = resolve_comparator(params["args"])
    return params


def _accuracy(sample: Sample, **params: Any) -> Result:
    return tool_call_accuracy(sample.expected_tools, sample.actual_calls(), **params)


def _f1(sample: Sample, **params: Any) -> Result:
    return tool_call_f1(sample.expected_tools, sample.actual_calls(), **params)


def _correctness(sample: Sample, **params: Any) -> Result:
    return tool_correctness(sample.expected_tools, sample.actual_calls(), **params)


def _trajectory(sample: Sample, **params: Any) -> Result:
    return trajectory_match(sample.expected_tools, sample.actual_calls(), **params)


def _contains(
    sample: Sample, *, values: Any = None, messages: str = "final", **params: Any
) -> Result:
    source = "option"
    if values is None:
        values, source = sample.metadata.get("output_contains"), "metadata.output_contains"
    if messages == "agent":  # tau-bench's output check: every agent reply, commas removed
        result = output_contains(values, agent_texts(sample.messages), **params)
    else:
        result = output_contains(values, sample.final_output(), **params)
    result.diagnosis.details["values_source"] = source
    return result


register_metric(
    MetricInfo(
        name="tool_call_accuracy",
        description="alignment × argument accuracy × coverage of the calls against "
        "expected_tools (ragas ToolCallAccuracy)",
        params={
            "order": Param(
                "strict",
                "strict: the names must agree position by position in the listed order "
                "(ordering constraints of expected_tools are not used); flexible: any order",
                choices=ORDERS,
            ),
            "args": Param("exact", _ARGS_HELP),
            "empty": _empty(),
            "threshold": Param(None, "pass when score >= threshold (null: score == 1)"),
        },
        requires=_CALLS,
        needs_judge=False,
        score_sample=_accuracy,
        prepare=_prepare_args,
    )
)

register_metric(
    MetricInfo(
        name="tool_call_f1",
        description="F1 of the calls made vs expected_tools, order ignored (precision and "
        "recall in the diagnosis)",
        params={
            "args": Param("exact", _ARGS_HELP),
            "empty": _empty(),
            "extra_keys": Param(
                "ignore",
                "an actual argument the expected call lacks: ignore (tooleval) or mismatch "
                "(ragas: the call fails)",
                choices=EXTRA_KEYS,
            ),
            "threshold": Param(None, "pass when score >= threshold (null: score == 1)"),
        },
        requires=_CALLS,
        needs_judge=False,
        score_sample=_f1,
        prepare=_prepare_args,
    )
)

register_metric(
    MetricInfo(
        name="tool_correctness",
        description="right tools, right arguments, right order: matched / max(expected, "
        "called), partial credit unless exact_match",
        params={
            "argument_keys": Param(
                None,
                "compare only these argument keys: a list, or "
                "{tool: [keys]}; empty compares every key",
            ),
            "exact_match": Param(
                False,
                "1.0 only when every expected call matches and nothing extra was called",
                choices=(False, True),
            ),
            "order": Param(
                "flexible",
                "strict: count only calls in the expected order (the expected_tools ordering "
                "constraints when given, else the listed order); flexible: any order",
                choices=ORDERS,
            ),
            "extra_calls": Param(
                "penalize",
                "penalize: divide by max(expected, called); ignore: divide by expected",
                choices=EXTRA_CALLS,
            ),
            "extra_keys": Param(
                "mismatch",
                "with every key compared, an argument the "
                "expected call lacks is a mismatch (or ignore it)",
                choices=EXTRA_KEYS,
            ),
            "args": Param("exact", _ARGS_HELP),
            "empty": _empty(),
            "threshold": Param(0.5, "pass when score >= threshold"),
        },
        requires=_CALLS,
        needs_judge=False,
        score_sample=_correctness,
        prepare=_prepare_args,
        aliases=correctness.ALIASES,
    )
)

register_metric(
    MetricInfo(
        name="trajectory_match",
        description="1 when the whole call trajectory matches the reference, in order or "
        "not, exactly or as a subset or superset",
        params={
            "order": Param(
                "strict",
                "strict: calls pair only along the listed order of both sides (ordering "
                "constraints of expected_tools are not used); flexible: any order",
                choices=ORDERS,
            ),
            "coverage": Param(
                "exact",
                "exact: the same calls; subset: every actual call is in the reference; "
                "superset: every reference call is in the actual calls",
                choices=COVERAGES,
            ),
            "args": Param("exact", _ARGS_HELP),
            "empty": _empty(),
            "threshold": Param(None, "pass when score >= threshold (null: score == 1)"),
        },
        requires=_CALLS,
        needs_judge=False,
        score_sample=_trajectory,
        prepare=_prepare_args,
        aliases=trajectory.ALIASES,
    )
)

register_metric(
    MetricInfo(
        name="output_contains",
        description="the final output contains the given values (metadata.output_contains "
        "or the values option); no judge",
        params={
            "values": Param(None, "values to find; null reads metadata.output_contains of the row"),
            "require": Param(
                "all", "all: every value must appear; any: one is enough", choices=REQUIRE
            ),
            "case_sensitive": Param(False, "match case exactly", choices=(False, True)),
            "messages": Param(
                "final",
                "final: the final answer; agent: every agent message with commas removed "
                "(tau-bench's output check)",
                choices=MESSAGE_SCOPES,
            ),
            "threshold": Param(None, "pass when score >= threshold (null: score == 1)"),
        },
        requires=("output",),
        needs_judge=False,
        score_sample=_contains,
        aliases=output.ALIASES,
    )
)
