"""tooleval: evaluate what AI agents do — their tool calls.

The public API is re-exported here; implementation lives in private-ish
modules. The model, errors, matchers, formats and deterministic metrics are
imported eagerly (pure Python, fast); everything that touches I/O or heavy
dependencies (datasets, connectors, the run store, runs, judges, monitoring)
is imported on first attribute access, so ``import tooleval`` stays fast and
does no I/O, no network and no telemetry.

>>> import tooleval
>>> expected = [tooleval.ToolCall("lookup_order"), tooleval.ToolCall("cancel_order")]
>>> tooleval.tool_correctness(expected, expected).score
1.0
"""

from __future__ import annotations

import typing

from tooleval.errors import (
    ConfigError,
    ConnectorError,
    DatasetError,
    FormatError,
    InputError,
    JudgeError,
    StoreError,
    ToolEvalError,
)
from tooleval.formats import (
    detect,
    export_messages,
    import_conversation,
    import_messages,
    parse_expected_tools,
    sample_from_row,
    sample_to_row,
)
from tooleval.matching import (
    Exact,
    Ignore,
    Matcher,
    Normalized,
    Numeric,
    Similarity,
    register_matcher,
    resolve_matcher,
)
from tooleval.metrics import (
    MetricInfo,
    Param,
    ascore_sample,
    get_metric,
    list_metrics,
    output_contains,
    register_metric,
    rescore,
    score_sample,
    tool_call_accuracy,
    tool_call_f1,
    tool_correctness,
    trajectory_match,
)
from tooleval.model import (
    MISSING,
    AnyOf,
    ArgumentCheck,
    AssistantMessage,
    Diagnosis,
    ExpectedTools,
    Result,
    Sample,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)

if typing.TYPE_CHECKING:  # the lazy names below, visible to type checkers and IDEs
    from tooleval.analysis import (
        classify_failure,
        cluster_failures,
        compare_runs,
        evaluate_gate,
    )
    from tooleval.connectors import (
        AgentResponse,
        CallableConnector,
        HttpConnector,
        OpenAIChatConnector,
        connector_from_config,
        explain_path,
    )
    from tooleval.datasets import Dataset, DatasetRow, load_dataset
    from tooleval.evaluation import EvaluationResult, evaluate
    from tooleval.judged import goal_accuracy, task_success, tools_error, topic_adherence
    from tooleval.llm import JudgeReply, JudgeUsage, LocalJudge, OpenAIJudge, judge_from_config
    from tooleval.monitor import (
        Finding,
        Session,
        monitor_sessions,
        read_sessions,
        run_detectors,
        session_to_case,
    )
    from tooleval.runs import arun_plan, load_plan, run_plan
    from tooleval.store import MetricSpec, RowRecord, RunInfo, Store, open_store
    from tooleval.testing import assert_tool_calls

# name -> module that defines it; imported on first access (PEP 562).
_LAZY = {
    # datasets and connectors
    "Dataset": "tooleval.datasets",
    "DatasetRow": "tooleval.datasets",
    "load_dataset": "tooleval.datasets",
    # offline evaluation of recorded conversations
    "evaluate": "tooleval.evaluation",
    "EvaluationResult": "tooleval.evaluation",
    "AgentResponse": "tooleval.connectors",
    "CallableConnector": "tooleval.connectors",
    "HttpConnector": "tooleval.connectors",
    "OpenAIChatConnector": "tooleval.connectors",
    "connector_from_config": "tooleval.connectors",
    "explain_path": "tooleval.connectors",
    # run store and runs
    "open_store": "tooleval.store",
    "Store": "tooleval.store",
    "RunInfo": "tooleval.store",
    "RowRecord": "tooleval.store",
    "MetricSpec": "tooleval.store",
    "load_plan": "tooleval.runs",
    "run_plan": "tooleval.runs",
    "arun_plan": "tooleval.runs",
    "compare_runs": "tooleval.analysis",
    "classify_failure": "tooleval.analysis",
    "cluster_failures": "tooleval.analysis",
    "evaluate_gate": "tooleval.analysis",
    "assert_tool_calls": "tooleval.testing",
    # LLM judges and judged metrics
    "JudgeReply": "tooleval.llm",
    "JudgeUsage": "tooleval.llm",
    "LocalJudge": "tooleval.llm",
    "OpenAIJudge": "tooleval.llm",
    "judge_from_config": "tooleval.llm",
    "topic_adherence": "tooleval.judged",
    "goal_accuracy": "tooleval.judged",
    "tools_error": "tooleval.judged",
    "task_success": "tooleval.judged",
    # production traces
    "read_sessions": "tooleval.monitor",
    "run_detectors": "tooleval.monitor",
    "monitor_sessions": "tooleval.monitor",
    "session_to_case": "tooleval.monitor",
    "Finding": "tooleval.monitor",
    "Session": "tooleval.monitor",
}

__all__ = [
    "AgentResponse",
    "AnyOf",
    "ArgumentCheck",
    "AssistantMessage",
    "CallableConnector",
    "ConfigError",
    "ConnectorError",
    "Dataset",
    "DatasetError",
    "DatasetRow",
    "Diagnosis",
    "EvaluationResult",
    "Exact",
    "ExpectedTools",
    "Finding",
    "FormatError",
    "HttpConnector",
    "Ignore",
    "InputError",
    "JudgeError",
    "JudgeReply",
    "JudgeUsage",
    "LocalJudge",
    "MISSING",
    "Matcher",
    "MetricInfo",
    "MetricSpec",
    "Normalized",
    "Numeric",
    "OpenAIChatConnector",
    "OpenAIJudge",
    "Param",
    "Result",
    "RowRecord",
    "RunInfo",
    "Sample",
    "Session",
    "Similarity",
    "Store",
    "StoreError",
    "SystemMessage",
    "ToolCall",
    "ToolEvalError",
    "ToolMessage",
    "UserMessage",
    "arun_plan",
    "ascore_sample",
    "assert_tool_calls",
    "classify_failure",
    "cluster_failures",
    "compare_runs",
    "connector_from_config",
    "detect",
    "evaluate",
    "evaluate_gate",
    "explain_path",
    "export_messages",
    "get_metric",
    "goal_accuracy",
    "import_conversation",
    "import_messages",
    "judge_from_config",
    "list_metrics",
    "load_dataset",
    "load_plan",
    "monitor_sessions",
    "open_store",
    "output_contains",
    "parse_expected_tools",
    "read_sessions",
    "register_matcher",
    "register_metric",
    "rescore",
    "resolve_matcher",
    "run_detectors",
    "run_plan",
    "sample_from_row",
    "sample_to_row",
    "score_sample",
    "session_to_case",
    "task_success",
    "tool_call_accuracy",
    "tool_call_f1",
    "tool_correctness",
    "tools_error",
    "topic_adherence",
    "trajectory_match",
]


def _version() -> str:
    # From the installed distribution's metadata, so it never drifts from pyproject.toml.
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tooleval")
    except PackageNotFoundError:
        return "0+unknown"


def __getattr__(name: str) -> object:
    if name == "__version__":
        value = _version()
        globals()[name] = value
        return value
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tooleval' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    # Only the public names (and __version__): not the submodules, typing or __future__.
    return sorted({*__all__, "__version__"})


del annotations, typing  # the namespace holds only the public names
