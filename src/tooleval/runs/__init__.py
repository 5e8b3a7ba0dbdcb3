"""Evaluation runs: plans, the concurrent runner, comparison, failure clustering, the CI gate.

>>> plan = plan_from_dict({"dataset": "cases.jsonl", "connector": {"url": "http://127.0.0.1:9"},
...                        "metrics": ["tool_correctness"], "gate": {"min_pass_rate": 0.9}})
>>> plan.concurrency, plan.gate.min_pass_rate
(8, 0.9)
"""

from tooleval.runs.clusters import (
    FAILURE_CLASSES,
    FailureCluster,
    classify_failure,
    cluster_failures,
    error_key,
    failure_detail,
)
from tooleval.runs.compare import (
    Comparison,
    ConfigDifference,
    DeltaCounts,
    RowDelta,
    change_of,
    compare_runs,
)
from tooleval.runs.gate import GateCheck, GateResult, evaluate_gate
from tooleval.runs.plan import DatasetSpec, GateSpec, MetricGate, Plan, load_plan, plan_from_dict
from tooleval.runs.preflight import PreflightReport, Problem, preflight
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
    "RowDelta",
    "RunOutcome",
    "arun_plan",
    "change_of",
    "check_plan",
    "classify_failure",
    "cluster_failures",
    "compare_runs",
    "error_key",
    "evaluate_gate",
    "failure_detail",
    "load_plan",
    "plan_from_dict",
    "preflight",
    "run_plan",
]
