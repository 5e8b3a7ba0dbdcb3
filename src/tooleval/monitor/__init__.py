"""Production traces: sessions, detectors that need no expected calls, trace -> test case.

>>> from tooleval.model import ToolCall
>>> s = Session("s1", [TracedCall(ToolCall("search", {"q": "x"})) for _ in range(3)])
>>> sorted(name for name, found in run_detectors(s).items() if found)
['redundancy', 'retry_loop']
"""

from tooleval.monitor.detectors import (
    DETECTORS,
    Finding,
    ToolBaseline,
    detector_result,
    error_ignored,
    excessive_calls,
    redundancy,
    retry_loop,
    run_detectors,
)
from tooleval.monitor.ingest import TraceSessions, read_sessions
from tooleval.monitor.judging import SampledJudging
from tooleval.monitor.live import LiveMonitor, LiveSessions
from tooleval.monitor.run import (
    MonitorReport,
    SessionVerdict,
    iter_verdicts,
    monitor,
    monitor_sessions,
)
from tooleval.monitor.session import Session, TracedCall, assemble_session, canonical_arguments
from tooleval.monitor.to_case import session_to_case
from tooleval.monitor.usage import PriceTable, session_usage
from tooleval.traces.otlp import IngestProblem, IngestReport

__all__ = [
    "DETECTORS",
    "Finding",
    "IngestProblem",
    "IngestReport",
    "LiveMonitor",
    "LiveSessions",
    "MonitorReport",
    "PriceTable",
    "SampledJudging",
    "Session",
    "SessionVerdict",
    "ToolBaseline",
    "TraceSessions",
    "TracedCall",
    "assemble_session",
    "canonical_arguments",
    "detector_result",
    "error_ignored",
    "excessive_calls",
    "iter_verdicts",
    "monitor",
    "monitor_sessions",
    "read_sessions",
    "redundancy",
    "retry_loop",
    "run_detectors",
    "session_to_case",
    "session_usage",
]
