"""Read-side analysis of stored runs: comparison, failure clusters, the gate, exports, repeats.

Everything here works on the store's records (:mod:`tooleval.store.records`)
and the model alone, so the report, the web viewer, the CLI and the runner
share one reading of a run. It imports only ``model``, ``store`` (its public
surface), ``metrics`` and the base modules (see docs/architecture.md).

>>> from tooleval.store.records import MetricSummary, RunInfo
>>> run = RunInfo(id="r", name="n", created_at="t", status="finished", row_count=4,
...               summaries={"m": MetricSummary("m", scored=4, passed=4)})
>>> evaluate_gate(run, GateSpec(min_pass_rate=0.9)).passed
True
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
from tooleval.analysis.gate import (
    GateCheck,
    GateResult,
    GateSpec,
    MetricGate,
    decide_floor,
    evaluate_gate,
)
from tooleval.analysis.repeats import (
    RepeatSummary,
    RowRepeats,
    analyse_repeats,
    pass_at_k,
    pass_hat_k,
    repeat_gate,
    repeat_of,
)

__all__ = [
    "FAILURE_CLASSES",
    "Comparison",
    "ConfigDifference",
    "DeltaCounts",
    "FailureCluster",
    "GateCheck",
    "GateResult",
    "GateSpec",
    "MetricGate",
    "RepeatSummary",
    "RowDelta",
    "RowRepeats",
    "analyse_repeats",
    "change_of",
    "classify_failure",
    "cluster_failures",
    "compare_runs",
    "decide_floor",
    "error_key",
    "evaluate_gate",
    "failure_detail",
    "pass_at_k",
    "pass_hat_k",
    "repeat_gate",
    "repeat_of",
]
