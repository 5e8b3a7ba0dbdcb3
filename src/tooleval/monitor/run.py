"""Run detectors over every session of a traces file, and keep what they found.

:func:`monitor` reads a traces file (see :func:`~tooleval.monitor.ingest.read_sessions`),
computes the batch baseline when ``excessive_calls`` runs (a first pass over
the sessions), runs the detectors (a second pass), and optionally stores one
row per session in the run store and writes OTel evaluation events.

In the store a monitor pass is an ordinary run: ``connector={"type": "traces"}``,
one metric ``detector:<name>`` per detector, one row per session whose Result
scores 1.0 (clean) or 0.0 (findings, listed in ``diagnosis.details["findings"]``).

>>> from tooleval.model import ToolCall
>>> from tooleval.monitor.session import Session, TracedCall
>>> s = Session("s1", [TracedCall(ToolCall("f", {})) for _ in range(3)])
>>> report = monitor_sessions([s], detectors=["retry_loop"])
>>> report.counts()
{'retry_loop': 1}
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tooleval.monitor.detectors import (
    DETECTORS,
    Finding,
    ToolBaseline,
    detector_result,
    resolve_detector_options,
    run_detectors,
)
from tooleval.monitor.session import Session
from tooleval.traces.otlp import IngestReport

__all__ = [
    "MonitorReport",
    "SessionVerdict",
    "check_something_read",
    "iter_verdicts",
    "monitor",
    "monitor_sessions",
]


@dataclass(slots=True)
class SessionVerdict:
    """One session with every chosen detector's findings."""

    session: Session
    findings: dict[str, list[Finding]]


@dataclass(slots=True)
class MonitorReport:
    """What a monitor pass found, with the ingestion report and the store run id."""

    detectors: dict[str, dict[str, Any]]
    findings: list[Finding] = field(default_factory=list)
    sessions: int = 0
    calls: int = 0
    ingest: IngestReport = field(default_factory=IngestReport)
    run_id: str | None = None
    source: str | None = None
    session_stats: list[dict[str, Any]] = field(default_factory=list)
    judged: list[dict[str, Any]] = field(default_factory=list)
    totals: dict[str, Any] = field(
        default_factory=lambda: {"llm_calls": 0, "input_tokens": 0, "output_tokens": 0}
    )
    #: per-session details kept for ``--json`` (totals stay exact past it)
    max_session_details: int = 10_000
    session_details_dropped: int = 0

    def add_stats(self, stats: dict[str, Any]) -> None:
        for key in ("llm_calls", "input_tokens", "output_tokens"):
            self.totals[key] += stats.get(key) or 0
        if stats.get("cost") is not None:
            self.totals["cost"] = round(self.totals.get("cost", 0.0) + stats["cost"], 8)
            self.totals["currency"] = stats.get("currency")
        if len(self.session_stats) < self.max_session_details:
            self.session_stats.append(stats)
        else:
            self.session_details_dropped += 1

    def usage_totals(self) -> dict[str, Any]:
        """Tokens, model calls and (with a price table) cost summed over the sessions."""
        return dict(self.totals)

    def counts(self) -> dict[str, int]:
        """Findings per detector (every chosen detector listed, 0 included)."""
        counted = Counter(f.detector for f in self.findings)
        return {name: counted.get(name, 0) for name in self.detectors}

    def grouped(self) -> dict[str, dict[str, list[Finding]]]:
        """Findings by detector, then by tool (``"(session)"`` for session-wide findings)."""
        out: dict[str, dict[str, list[Finding]]] = {name: {} for name in self.detectors}
        for finding in self.findings:
            out.setdefault(finding.detector, {}).setdefault(finding.tool or "(session)", []).append(
                finding
            )
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "sessions": self.sessions,
            "tool_calls": self.calls,
            "detectors": self.detectors,
            "counts": self.counts(),
            "findings": [f.to_dict() for f in self.findings],
            "ingest": self.ingest.to_dict(),
            "run_id": self.run_id,
            "usage": self.usage_totals(),
            "session_details": self.session_stats,
            "session_details_dropped": self.session_details_dropped,
            "judged": self.judged,
        }


def session_stats(session: Session, prices: Any = None) -> dict[str, Any]:
    """One session's counts, tokens, latency and (with a price table) cost.

    >>> from tooleval.model import ToolCall
    >>> from tooleval.monitor.session import Session, TracedCall
    >>> s = Session("s1", [TracedCall(ToolCall("f", {})) for _ in range(3)])
    >>> stats = session_stats(s)
    >>> stats["tool_calls"], stats["tool_errors"], stats["llm_calls"]
    (3, 0, 0)
    """
    usage = session.usage or {}
    out: dict[str, Any] = {
        "session_id": session.id,
        "tool_calls": len(session.calls),
        "tool_errors": sum(1 for c in session.calls if c.is_error),
        "llm_calls": usage.get("llm_calls", 0),
        "input_tokens": usage.get("input_tokens", 0),
        "output_tokens": usage.get("output_tokens", 0),
        "llm_latency_ms": usage.get("llm_latency_ms"),
        "tool_latency_ms": usage.get("tool_latency_ms"),
        "duration_ms": usage.get("duration_ms"),
        "models": usage.get("models", {}),
        "llm_spans": usage.get("llm_spans", []),
        "tool_spans": usage.get("tool_spans", []),
    }
    if prices is not None:
        out.update(prices.cost(usage))
    if session.unreadable:
        out["unreadable"] = list(session.unreadable)
    return out


def _baseline(sessions: Iterable[Session], resolved: Mapping[str, Any]) -> ToolBaseline | None:
    if not any(DETECTORS[name].needs_baseline for name in resolved):
        return None
    return ToolBaseline.from_sessions(sessions)


def iter_verdicts(
    sessions: Iterable[Session],
    *,
    detectors: Iterable[str] | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    baseline: ToolBaseline | None = None,
) -> Iterator[SessionVerdict]:
    """Every session's findings, one session at a time (``sessions`` iterated once).

    >>> from tooleval.model import ToolCall
    >>> from tooleval.monitor.session import Session, TracedCall
    >>> s = Session("s1", [TracedCall(ToolCall("f", {})) for _ in range(3)])
    >>> [len(v.findings["retry_loop"]) for v in iter_verdicts([s], detectors=["retry_loop"])]
    [1]
    """
    resolved = resolve_detector_options(detectors, options)
    for session in sessions:
        found = run_detectors(session, detectors=resolved, options=options, baseline=baseline)
        yield SessionVerdict(session, found)


def monitor_sessions(
    sessions: Iterable[Session],
    *,
    detectors: Iterable[str] | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    store: Any = None,
    run_name: str = "monitor",
    dataset: Mapping[str, Any] | None = None,
    emit: str | Path | None = None,
    emit_passes: bool = False,
    ingest: IngestReport | None = None,
    prices: Any = None,
    judging: Any = None,
    source: str | Path | None = None,
) -> MonitorReport:
    """Run detectors over sessions (re-iterable when ``excessive_calls`` is chosen).

    ``store`` is a :class:`~tooleval.store.Store` or a store URL; ``emit`` a
    path for OTLP JSON ``gen_ai.evaluation.result`` events. With ``source``
    (the file the sessions came from), input of which no session could be
    read raises InputError (:func:`check_something_read`) before any run is
    stored or event written.
    """
    resolved = resolve_detector_options(detectors, options)
    if any(DETECTORS[n].needs_baseline for n in resolved) and iter(sessions) is sessions:
        sessions = list(sessions)  # a one-shot iterator cannot be read twice
    baseline = _baseline(sessions, resolved)
    report = MonitorReport(detectors=resolved, ingest=ingest or IngestReport())
    outputs = _Outputs(
        resolved,
        emit=emit,
        emit_passes=emit_passes,
        store=store,
        run_name=run_name,
        dataset=dataset,
    )
    try:
        for index, verdict in enumerate(
            iter_verdicts(sessions, detectors=resolved, options=options, baseline=baseline)
        ):
            if index == 0:
                report.run_id = outputs.open()
            judged = _tally(report, verdict, prices, judging)
            outputs.add(index, verdict, judged)
        if report.sessions == 0:
            if source is not None:
                check_something_read(report, source)
            report.run_id = outputs.open()
        outputs.finish("finished")
    except BaseException:
        outputs.finish("failed")
        raise
    finally:
        outputs.close()
    return report


def _tally(
    report: MonitorReport, verdict: SessionVerdict, prices: Any, judging: Any
) -> list[Any] | None:
    """One session's counts, findings and stats into ``report``; its judged results, if judged."""
    report.sessions += 1
    report.calls += len(verdict.session.calls)
    report.ingest.add_unreadable(verdict.session.unreadable)
    report.add_stats(session_stats(verdict.session, prices))
    for found in verdict.findings.values():
        report.findings.extend(found)
    if judging is None:
        return None
    judged: list[Any] = list(judging.judge(verdict.session))
    report.judged.extend(j.to_dict() for j in judged)
    return judged


class _Outputs:
    """The events file and the store run of a monitor pass.

    Opened at the first session (or once an empty input is known to be
    fine), so unreadable input stores no run and writes no events file.
    """

    def __init__(
        self,
        resolved: Mapping[str, Any],
        *,
        emit: str | Path | None,
        emit_passes: bool,
        store: Any,
        run_name: str,
        dataset: Mapping[str, Any] | None,
    ) -> None:
        self.resolved = resolved
        self.emit, self.emit_passes = emit, emit_passes
        self.store, self.run_name, self.dataset = store, run_name, dataset
        self.writer: Any = None
        self.rows: Any = None
        self.owned_store: Any = None

    def open(self) -> str | None:
        """Open the events writer and start the store run; the run's id (None: no store)."""
        if self.emit is not None:
            from tooleval.monitor.emit import EvaluationEventWriter

            self.writer = EvaluationEventWriter(self.emit, include_passes=self.emit_passes)
        if self.store is None:
            return None
        from tooleval.store import MetricSpec, RunWriter, open_store

        if isinstance(self.store, str | Path):
            self.store = self.owned_store = open_store(str(self.store))
        self.rows = RunWriter.start(
            self.store,
            self.run_name,
            dataset=dict(self.dataset or {"kind": "traces"}),
            connector={"type": "traces"},
            metrics=[MetricSpec(name=f"detector:{n}", params=p) for n, p in self.resolved.items()],
            tags=("monitor",),
            config={"detectors": self.resolved},
            batch_size=200,
        )
        return str(self.rows.run_id)

    def add(self, index: int, verdict: SessionVerdict, judged: list[Any] | None) -> None:
        """One session's events (its judged results first) and its store row."""
        if self.writer is not None:
            if judged is not None:
                self.writer.add_judged(verdict.session, judged)
            self.writer.add(verdict, self.resolved)
        if self.rows is not None:
            self.rows.add(_row(self.rows.run_id, index, verdict, self.resolved))

    def finish(self, status: str) -> None:
        if self.rows is not None:
            self.rows.finish(status)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        if self.owned_store is not None:
            self.owned_store.close()


def check_something_read(report: MonitorReport, source: str | Path) -> None:
    """Raise InputError (exit 2) when no session was read and nothing was a span.

    Lines or spans skipped with no session read, or a JSON file with no OTLP
    span at all (a JSON array of something else), mean the file was not
    understood: a ``--fail-on`` gate must not pass on it, and :func:`monitor`
    stores no run and writes no events for it.

    >>> check_something_read(MonitorReport(detectors={}, sessions=1), "t.jsonl")
    """
    from tooleval.errors import InputError
    from tooleval.monitor.ingest import sniff_traces

    if report.sessions:
        return
    ingest = report.ingest
    skipped = ingest.spans_skipped + len(ingest.problems) + ingest.problems_dropped
    if skipped:
        first = f"; the first: {ingest.problems[0]}" if ingest.problems else ""
        raise InputError(
            f"no session could be read ({skipped} lines or spans skipped{first})", file=str(source)
        )
    if not ingest.spans and sniff_traces(str(source)) == "otlp":
        raise InputError(
            "no OTLP span and no conversation found; expected OTLP JSON traces (a request "
            "per line, a document, or an array of requests) or JSONL conversations",
            file=str(source),
        )


def _row(run_id: str, index: int, verdict: SessionVerdict, resolved: Mapping[str, Any]) -> Any:
    from tooleval.store import RowRecord

    results = tuple(
        detector_result(name, verdict.findings[name], resolved[name]) for name in resolved
    )
    return RowRecord(
        run_id=run_id,
        index=index,
        row_id=verdict.session.id,
        sample=verdict.session.to_sample(),
        results=results,
        latency_ms=(verdict.session.usage or {}).get("duration_ms"),
        raw_response=span_record(verdict.session),
    )


def span_record(session: Session) -> dict[str, Any] | None:
    """What a stored session row keeps of its spans: a tree in time (offsets from its first span).

    The viewer's transcript draws it (nested by ``parent_span_id``: kind, name,
    start, latency, tokens, error message);
    None for a logged conversation, which has no spans.

    >>> span_record(Session("s")) is None
    True
    """
    usage = session.usage or {}
    spans = [dict(s, kind="agent") for s in usage.get("agent_spans", ())]
    spans += [dict(s, kind="llm") for s in usage.get("llm_spans", ())]
    spans += [dict(s, kind="tool") for s in usage.get("tool_spans", ())]
    if not spans:
        return None
    starts = [s["start_ns"] for s in spans if isinstance(s.get("start_ns"), int)]
    first = min(starts, default=0)
    for span in spans:
        start = span.pop("start_ns", None)
        span["start_ms"] = None if not isinstance(start, int) else round((start - first) / 1e6, 3)
    totals = {k: usage.get(k) for k in ("input_tokens", "output_tokens", "duration_ms", "models")}
    return {"spans": spans, "usage": totals}


def monitor(
    path: str | Path,
    *,
    detectors: Iterable[str] | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    store: Any = None,
    emit: str | Path | None = None,
    emit_passes: bool = False,
    max_in_memory: int = 20_000,
    prices: Any = None,
    judging: Any = None,
) -> MonitorReport:
    """Read a traces file and run the detectors over every session.

    ``options`` maps detector name to its options (see
    :data:`~tooleval.monitor.detectors.DETECTORS`); ``store``, ``emit`` and
    ``emit_passes`` are as in :func:`monitor_sessions`; ``prices`` a
    :class:`~tooleval.monitor.usage.PriceTable`; ``judging`` a
    :class:`~tooleval.monitor.judging.SampledJudging`. The ingest report
    (skipped spans with their ids) is ``report.ingest``.
    """
    from tooleval.monitor.ingest import read_sessions

    path = Path(path)
    with read_sessions(path, max_in_memory=max_in_memory) as sessions:
        kind = "conversations" if sessions.layout == "conversations" else "otlp"
        report = monitor_sessions(
            sessions,
            detectors=detectors,
            options=options,
            store=store,
            run_name=f"monitor {path.name}",
            dataset={"path": str(path), "kind": "traces", "format": kind},
            emit=emit,
            emit_passes=emit_passes,
            ingest=sessions.report,
            prices=prices,
            judging=judging,
            source=path,
        )
    report.source = str(path)
    report.ingest.tool_calls = report.calls
    return report
