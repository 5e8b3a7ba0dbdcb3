"""Evaluation runs: plans, the concurrent runner; re-exports the read-side analysis.

Comparison, failure clustering and the CI gate live in :mod:`tooleval.analysis`
(they read stored runs only) and are re-exported here under their old names.
For CI loops: :func:`rescore_run` (new metrics over stored answers, no agent
call, specs from :func:`parse_metric_specs`) and :class:`ResponseCache`
(passed as ``run_plan(..., cache=...)``; :func:`default_cache_path` is where
the CLI keeps it).

>>> plan = plan_from_dict({"dataset": "cases.jsonl", "connector": {"url": "http://127.0.0.1:9"},
...                        "metrics": ["tool_correctness"], "gate": {"min_pass_rate": 0.9}})
>>> plan.concurrency, plan.gate.min_pass_rate
(8, 0.9)
"""

from tooleval.analysis.clusters import (
    FAILURE_CLASSES,
    FailureCluster,
    classify_failure,
    cluster_failures,
    error_key,
    failure_detail,
)
from tooleval.analysis.compare import (
    Comparison,
    ConfigDifference,
    DeltaCounts,
    RowDelta,
    change_of,
    compare_runs,
)
from tooleval.analysis.gate import GateCheck, GateResult, evaluate_gate
from tooleval.runs.plan import DatasetSpec, GateSpec, MetricGate, Plan, load_plan, plan_from_dict
from tooleval.runs.preflight import PreflightReport, Problem, preflight
from tooleval.runs.rescore import parse_metric_specs, rescore_run
from tooleval.runs.response_cache import ResponseCache, default_cache_path
from tooleval.runs.runner import RunOutcome, arun_plan, check_plan, run_plan

__all__ = [
    "FAILURE_CLASSES",
    "Comparison",
    "ConfigDifference",
    "DatasetSpec",
    "DeltaCounts",
    "FailureCluster",
    "GateCheck",
    "GateResult",
    "GateSpec",
    "MetricGate",
    "Plan",
    "PreflightReport",
    "Problem",
    "ResponseCache",
    "RowDelta",
    "RunOutcome",
    "arun_plan",
    "change_of",
    "check_plan",
    "classify_failure",
    "cluster_failures",
    "compare_runs",
    "default_cache_path",
    "error_key",
    "evaluate_gate",
    "failure_detail",
    "load_plan",
    "parse_metric_specs",
    "plan_from_dict",
    "preflight",
    "rescore_run",
    "run_plan",
]
