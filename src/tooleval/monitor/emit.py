"""Write detector verdicts as OTel ``gen_ai.evaluation.result`` events (OTLP JSON).

Events are OTLP log records (``ExportLogsServiceRequest``, one JSON request
per line, up to ``batch_size`` records each) with ``eventName =
gen_ai.evaluation.result``. Each record carries the ``traceId`` and ``spanId``
of the span it judges, so a tracing backend shows it on that span:

* a finding is attached to the span of its first involved call (or to the
  session's first trace when the finding names no span);
* with ``include_passes``, a clean verdict per session and detector is
  attached to the session's first call span.

Attributes: ``gen_ai.evaluation.name`` (the detector), ``.score.value``
(0.0 finding / 1.0 clean), ``.score.label`` (``fail`` / ``pass``),
``.explanation`` (the finding's message), plus ``gen_ai.conversation.id``,
``gen_ai.tool.name`` when known, and ``tooleval.finding`` (the finding as
JSON). Sessions read from conversation logs have no trace and emit nothing.

Judged metrics (:meth:`EvaluationEventWriter.add_judged`) use the same event,
named after the metric, labelled ``pass`` / ``fail`` / ``unscored``. Batches go
to a file (one request per line) and/or are POSTed to an OTLP/HTTP logs
endpoint as JSON.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from tooleval.monitor.detectors import Finding

__all__ = ["EVENT_NAME", "EvaluationEventWriter", "evaluation_record"]

EVENT_NAME = "gen_ai.evaluation.result"


def _attribute(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        typed: dict[str, Any] = {"boolValue": value}
    elif isinstance(value, int):
        typed = {"intValue": str(value)}
    elif isinstance(value, float):
        typed = {"doubleValue": value}
    else:
        typed = {"stringValue": str(value)}
    return {"key": key, "value": typed}


def evaluation_record(
    *,
    name: str,
    score: float,
    label: str,
    explanation: str,
    trace_id: str,
    span_id: str | None,
    session_id: str,
    tool: str | None = None,
    finding: Finding | None = None,
    time_ns: int | None = None,
) -> dict[str, Any]:
    """One OTLP JSON log record for a ``gen_ai.evaluation.result`` event.

    >>> r = evaluation_record(name="retry_loop", score=0.0, label="fail", explanation="x",
    ...     trace_id="ab" * 16, span_id="cd" * 8, session_id="s1")
    >>> r["eventName"], [a["key"] for a in r["attributes"]][:2]
    ('gen_ai.evaluation.result', ['gen_ai.evaluation.name', 'gen_ai.evaluation.score.value'])
    """
    now = str(time_ns if time_ns is not None else time.time_ns())
    attributes = [
        _attribute("gen_ai.evaluation.name", name),
        _attribute("gen_ai.evaluation.score.value", float(score)),
        _attribute("gen_ai.evaluation.score.label", label),
        _attribute("gen_ai.evaluation.explanation", explanation),
        _attribute("gen_ai.conversation.id", session_id),
    ]
    if tool:
        attributes.append(_attribute("gen_ai.tool.name", tool))
    if finding is not None:
        attributes.append(
            _attribute("tooleval.finding", json.dumps(finding.to_dict(), default=str))
        )
    record: dict[str, Any] = {
        "timeUnixNano": now,
        "observedTimeUnixNano": now,
        "eventName": EVENT_NAME,
        "severityNumber": 9,
        "severityText": "INFO",
        "traceId": trace_id,
        "attributes": attributes,
    }
    if span_id:
        record["spanId"] = span_id
    return record


class EvaluationEventWriter:
    """Streams evaluation events to an OTLP JSON logs file (JSONL of requests) and/or endpoint.

    ``endpoint`` is an OTLP/HTTP logs URL (``http://host:4318/v1/logs``): each
    batch is POSTed as an OTLP JSON ``ExportLogsServiceRequest``. A failed
    export is counted in ``export_errors`` (with the last error in
    ``last_export_error``) and does not stop monitoring.
    """

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        include_passes: bool = False,
        batch_size: int = 500,
        endpoint: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float = 10.0,
    ) -> None:
        self.path = Path(path) if path is not None else None
        self.include_passes = include_passes
        self.batch_size = batch_size
        self.count = 0
        self.exported = 0
        self.export_errors = 0
        self.last_export_error: str | None = None
        self._pending: list[dict[str, Any]] = []
        # closed by close(); the writer outlives any single with-block of its caller
        self._handle: IO[str] | None = (
            open(self.path, "w", encoding="utf-8") if self.path is not None else None  # noqa: SIM115
        )
        self._client = None
        self.endpoint = endpoint
        if endpoint is not None:
            import httpx

            self._client = httpx.Client(timeout=timeout, headers=dict(headers or {}))

    def add_judged(self, session: Any, verdicts: Any) -> None:
        """Queue one event per judged metric result (sessions with no trace emit nothing)."""
        if not session.trace_ids:
            return
        for verdict in verdicts:
            unscored = verdict.score is None
            self._pending.append(
                evaluation_record(
                    name=verdict.metric,
                    score=0.0 if unscored else float(verdict.score),
                    label="unscored" if unscored else ("pass" if verdict.passed else "fail"),
                    explanation=verdict.reason,
                    trace_id=verdict.trace_id or session.trace_ids[0],
                    span_id=verdict.span_id,
                    session_id=session.id,
                )
            )
        if len(self._pending) >= self.batch_size:
            self._flush()

    def add(self, verdict: Any, detectors: Mapping[str, Any]) -> None:
        """Queue the events for one :class:`~tooleval.monitor.run.SessionVerdict`."""
        session = verdict.session
        if not session.trace_ids:
            return
        first_span = next((c.span_id for c in session.calls if c.span_id), None)
        for name in detectors:
            findings = verdict.findings.get(name, [])
            for finding in findings:
                self._pending.append(
                    evaluation_record(
                        name=name,
                        score=0.0,
                        label="fail",
                        explanation=finding.message,
                        trace_id=finding.trace_id or session.trace_ids[0],
                        span_id=finding.span_ids[0] if finding.span_ids else None,
                        session_id=session.id,
                        tool=finding.tool,
                        finding=finding,
                    )
                )
            if not findings and self.include_passes:
                self._pending.append(
                    evaluation_record(
                        name=name,
                        score=1.0,
                        label="pass",
                        explanation="no findings",
                        trace_id=session.trace_ids[0],
                        span_id=first_span,
                        session_id=session.id,
                    )
                )
        if len(self._pending) >= self.batch_size:
            self._flush()

    def flush(self) -> None:
        """Write and export what is queued."""
        self._flush()

    def _flush(self) -> None:
        if not self._pending or (self._handle is None and self._client is None):
            return
        from importlib.metadata import PackageNotFoundError, version

        try:
            scope_version = version("tooleval")
        except PackageNotFoundError:  # pragma: no cover - running from a source tree
            scope_version = "0"
        request = {
            "resourceLogs": [
                {
                    "resource": {"attributes": [_attribute("service.name", "tooleval")]},
                    "scopeLogs": [
                        {
                            "scope": {"name": "tooleval.monitor", "version": scope_version},
                            "logRecords": self._pending,
                        }
                    ],
                }
            ]
        }
        text = json.dumps(request, default=str)
        if self._handle is not None:
            self._handle.write(text + "\n")
            self._handle.flush()
        if self._client is not None and self.endpoint is not None:
            try:
                response = self._client.post(
                    self.endpoint, content=text, headers={"content-type": "application/json"}
                )
                response.raise_for_status()
                self.exported += len(self._pending)
            except Exception as exc:  # a down collector must not stop monitoring
                self.export_errors += 1
                self.last_export_error = f"{type(exc).__name__}: {exc}"
        self.count += len(self._pending)
        self._pending = []

    def close(self) -> None:
        self._flush()
        if self._handle is not None:
            self._handle.close()
            self._handle = None
        if self._client is not None:
            self._client.close()
            self._client = None
