"""Evaluation runs: plans, preflight checks, the concurrent runner, rescoring.

Reading stored runs (comparison, failure clustering, the CI gate) is
:mod:`tooleval.analysis`; showing them is the CLI's, the report's and the viewer's.
For CI loops: :func:`rescore_run` (new metrics over stored answers, no agent
call, specs from :func:`parse_metric_specs`) and :class:`ResponseCache`
(passed as ``run_plan(..., cache=...)``; :func:`default_cache_path` is where
the CLI keeps it).

>>> plan = plan_from_dict({"dataset": "cases.jsonl", "connector": {"url": "http://127.0.0.1:9"},
...                        "metrics": ["tool_correctness"], "gate": {"min_pass_rate": 0.9}})
>>> plan.concurrency, plan.gate.min_pass_rate
(8, 0.9)
"""

from tooleval.runs.plan import DatasetSpec, GateSpec, MetricGate, Plan, load_plan, plan_from_dict
from tooleval.runs.preflight import PreflightReport, Problem, preflight
from tooleval.runs.rescore import parse_metric_specs, rescore_run
from tooleval.runs.response_cache import ResponseCache, default_cache_path
from tooleval.runs.runner import RunOutcome, arun_plan, check_plan, run_plan

__all__ = [
    "DatasetSpec",
    "GateSpec",
    "MetricGate",
    "Plan",
    "PreflightReport",
    "Problem",
    "ResponseCache",
    "RunOutcome",
    "arun_plan",
    "check_plan",
    "default_cache_path",
    "load_plan",
    "parse_metric_specs",
    "plan_from_dict",
    "preflight",
    "rescore_run",
    "run_plan",
]
