"""Live monitoring: spans arrive in batches, sessions are judged once they go quiet.

:class:`LiveSessions` buffers span facts by trace. A session (its traces
grouped by ``gen_ai.conversation.id`` / ``session.id``, else the trace id) is
*complete* when none of its traces received a span for ``idle_timeout``
seconds; :meth:`LiveSessions.pop_idle` assembles and returns those. When more
than ``max_pending`` facts are buffered, the sessions idle the longest are
released early, so memory stays bounded whatever the traffic. A turn that
arrives after its session was released starts a new batch with the same id;
such a *split* session is remembered (:meth:`LiveSessions.take_splits`) so the
receiver can say which session was stored as two rows and why (an idle timeout
shorter than the exporter's batch delay).

:class:`LiveMonitor` runs the detectors on each released session, writes one
store row per session (one run for the whole serving period), queues
``gen_ai.evaluation.result`` events (file and/or OTLP endpoint) and runs the
sampled judges. ``excessive_calls`` compares against the last
``baseline_window`` sessions seen.

>>> from tooleval.traces.genai import SpanCall, SpanFacts
>>> live = LiveSessions(idle_timeout=5.0)
>>> live.add([SpanFacts("t1", "s1", calls=[SpanCall("f")])], now=100.0)
>>> live.pop_idle(now=102.0), [s.id for s in live.pop_idle(now=106.0)]
([], ['t1'])
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict, deque
from collections.abc import Iterable, Mapping
from typing import Any

from tooleval.monitor.detectors import (
    DETECTORS,
    Finding,
    ToolBaseline,
    resolve_detector_options,
    run_detectors,
)
from tooleval.monitor.session import Session, assemble_session
from tooleval.traces.genai import SpanFacts
from tooleval.traces.otlp import IngestReport

__all__ = ["LiveMonitor", "LiveSessions"]


class LiveSessions:
    """Span facts by trace, released as sessions once idle (thread-safe)."""

    #: Released session ids remembered to recognise a late turn (oldest forgotten first).
    REMEMBERED = 50_000

    def __init__(self, *, idle_timeout: float = 30.0, max_pending: int = 200_000) -> None:
        self.idle_timeout = idle_timeout
        self.max_pending = max_pending
        self._lock = threading.Lock()
        self._traces: dict[str, list[SpanFacts]] = {}
        self._seen: dict[str, float] = {}
        self._session_of: dict[str, str] = {}
        self._pending = 0
        self.released_early = 0
        self._released: OrderedDict[str, float] = OrderedDict()  # session id -> when released
        self._splits: list[tuple[str, float]] = []
        self.split_sessions = 0

    @property
    def pending(self) -> int:
        return self._pending

    def add(self, facts: Iterable[SpanFacts], *, now: float) -> None:
        touched: set[str] = set()
        with self._lock:
            for fact in facts:
                if fact.session_id:
                    self._session_of.setdefault(fact.trace_id, fact.session_id)
                    touched.add(fact.trace_id)
                if not fact.has_content:
                    continue
                touched.add(fact.trace_id)
                self._traces.setdefault(fact.trace_id, []).append(fact)
                self._seen[fact.trace_id] = now
                self._pending += 1
            # A late turn of a released session (its spans may name the session in
            # this batch or a later one): that session becomes two rows.
            for trace_id in touched:
                if trace_id not in self._traces:
                    continue
                key = self._session_of.get(trace_id, trace_id)
                released = self._released.pop(key, None)
                if released is not None:
                    self.split_sessions += 1
                    self._splits.append((key, now - released))

    def take_splits(self) -> list[tuple[str, float]]:
        """``(session id, seconds after its release)`` of late turns seen since the last call."""
        with self._lock:
            splits, self._splits = self._splits, []
            return splits

    def _groups(self) -> dict[str, list[str]]:
        groups: dict[str, list[str]] = {}
        for trace_id in self._traces:
            groups.setdefault(self._session_of.get(trace_id, trace_id), []).append(trace_id)
        return groups

    def _release(self, key: str, trace_ids: list[str], *, now: float | None = None) -> Session:
        facts: list[SpanFacts] = []
        for trace_id in trace_ids:
            facts.extend(self._traces.pop(trace_id))
            self._seen.pop(trace_id, None)
            self._session_of.pop(trace_id, None)
        self._pending -= len(facts)
        if now is not None:
            self._released[key] = now
            self._released.move_to_end(key)
            while len(self._released) > self.REMEMBERED:
                self._released.popitem(last=False)
        return assemble_session(key, facts)

    def pop_idle(self, *, now: float) -> list[Session]:
        """Sessions quiet for ``idle_timeout`` seconds (and the oldest, past ``max_pending``)."""
        with self._lock:
            if self._pending <= self.max_pending and (
                not self._seen or now - min(self._seen.values()) < self.idle_timeout
            ):
                return []  # no trace is idle, so no session is (checked on each tick)
            groups = self._groups()
            last = {key: max(self._seen[t] for t in traces) for key, traces in groups.items()}
            out = [
                self._release(key, groups[key], now=now)
                for key in sorted(last, key=last.__getitem__)
                if now - last[key] >= self.idle_timeout
            ]
            if self._pending > self.max_pending:
                for key in sorted(last, key=last.__getitem__):
                    if self._pending <= self.max_pending // 2:
                        break
                    if key in groups and all(t in self._traces for t in groups[key]):
                        out.append(self._release(key, groups[key], now=now))
                        self.released_early += 1
            return out

    def take_open(self) -> tuple[list[SpanFacts], dict[str, str]]:
        """Remove and return every buffered fact and the trace-to-session map (at shutdown,
        to keep open sessions for the next start instead of storing them cut)."""
        with self._lock:
            facts = [fact for trace in self._traces.values() for fact in trace]
            session_of = {t: self._session_of[t] for t in self._traces if t in self._session_of}
            self._traces.clear()
            self._seen.clear()
            self._session_of.clear()
            self._pending = 0
            return facts, session_of

    def restore(self, facts: list[SpanFacts], session_of: Mapping[str, str], *, now: float) -> None:
        """Put back the facts :meth:`take_open` returned (at the next start)."""
        with self._lock:
            for trace_id, session in session_of.items():
                self._session_of.setdefault(trace_id, session)
        self.add(facts, now=now)

    def pop_all(self) -> list[Session]:
        """Every buffered session, whatever its age (at shutdown)."""
        with self._lock:
            groups = self._groups()
            return [self._release(key, traces) for key, traces in groups.items()]


class LiveMonitor:
    """Detectors, store rows, evaluation events and sampled judging for released sessions."""

    def __init__(
        self,
        *,
        detectors: Iterable[str] | None = None,
        options: Mapping[str, Mapping[str, Any]] | None = None,
        store: Any = None,
        writer: Any = None,
        judging: Any = None,
        prices: Any = None,
        baseline_window: int = 5_000,
        run_name: str = "monitor serve",
    ) -> None:
        self.resolved = resolve_detector_options(detectors, options)
        self.options = options
        self.writer = writer
        self.judging = judging
        self.prices = prices
        self.report = IngestReport()
        self.counts: Counter[str] = Counter()
        self.sessions = 0
        self.calls = 0
        self.judged = 0
        # the tool counts of the last baseline_window sessions, and per tool how many of
        # them called it how often (kept as sessions come and go: the baseline of each
        # batch costs the distinct counts, not the window)
        self._recent: deque[Counter[str]] = deque()
        self._window = baseline_window
        self._histograms: dict[str, Counter[int]] = {}
        # the store's RunWriter once started: the writer plan runs and monitor passes use
        self._rows: Any = None
        self._owned_store: Any = None
        self.run_id: str | None = None
        self._index = 0
        self._store_arg = store
        self._run_name = run_name

    def start(self) -> None:
        """Open the store and create the run (call from the thread that will write rows)."""
        store = self._store_arg
        if store is None:
            return
        from tooleval.store import MetricSpec, RunWriter, open_store

        if isinstance(store, str):
            store = self._owned_store = open_store(store)
        self._rows = RunWriter.start(
            store,
            self._run_name,
            dataset={"kind": "traces", "format": "otlp-live"},
            connector={"type": "traces"},
            metrics=[MetricSpec(name=f"detector:{n}", params=p) for n, p in self.resolved.items()],
            tags=("monitor", "live"),
            config={"detectors": self.resolved},
            batch_size=200,
        )
        self.run_id = self._rows.run_id

    def process(self, sessions: list[Session]) -> list[Finding]:
        """Run everything on released sessions; returns their findings."""
        from tooleval.monitor.run import SessionVerdict, _row, session_stats

        if not sessions:
            return []
        baseline = None
        if any(DETECTORS[n].needs_baseline for n in self.resolved):
            for session in sessions:
                self._remember(Counter(c.name for c in session.calls))
            baseline = ToolBaseline.from_histograms(self._histograms)
        findings: list[Finding] = []
        rows = []
        for session in sessions:
            found = run_detectors(
                session, detectors=self.resolved, options=self.options, baseline=baseline
            )
            verdict = SessionVerdict(session, found)
            self.sessions += 1
            self.calls += len(session.calls)
            self.report.add_unreadable(session.unreadable)
            for name, items in found.items():
                self.counts[name] += len(items)
                findings.extend(items)
            if self.judging is not None:
                judged = self.judging.judge(session)
                self.judged += len(judged)
                if self.writer is not None and judged:
                    self.writer.add_judged(session, judged)
            if self.writer is not None:
                self.writer.add(verdict, self.resolved)
            if self.run_id is not None:
                row = _row(self.run_id, self._index, verdict, self.resolved)
                stats = session_stats(session, self.prices)
                row.sample.metadata["usage"] = {
                    k: stats[k]
                    for k in ("llm_calls", "input_tokens", "output_tokens")
                    if k in stats
                }
                if "cost" in stats:
                    row.sample.metadata["usage"]["cost"] = stats["cost"]
                rows.append(row)
                self._index += 1
        if self._rows is not None:
            for row in rows:
                self._rows.add(row)
            self._rows.flush()  # released sessions are stored as they are released
        if self.writer is not None:
            self.writer.flush()
        return findings

    def _remember(self, counts: Counter[str]) -> None:
        """Add a session's tool counts to the baseline window (the oldest leaves it)."""
        self._recent.append(counts)
        for tool, count in counts.items():
            self._histograms.setdefault(tool, Counter())[count] += 1
        if len(self._recent) > self._window:
            for tool, count in self._recent.popleft().items():
                histogram = self._histograms[tool]
                histogram[count] -= 1
                if not histogram[count]:
                    del histogram[count]
                if not histogram:
                    del self._histograms[tool]

    def close(self, status: str = "finished") -> None:
        if self.writer is not None:
            self.writer.close()
        if self._rows is not None:
            self._rows.finish(status)
        if self._owned_store is not None:
            self._owned_store.close()
            self._owned_store = None

    def summary(self) -> dict[str, Any]:
        return {
            "sessions": self.sessions,
            "tool_calls": self.calls,
            "counts": {name: self.counts.get(name, 0) for name in self.resolved},
            "judged": self.judged,
            "run_id": self.run_id,
            "unreadable_tool_use": dict(self.report.unreadable),
            "events_exported": getattr(self.writer, "exported", 0),
            "export_errors": getattr(self.writer, "export_errors", 0),
        }
