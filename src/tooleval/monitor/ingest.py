"""Read a traces file into sessions, in bounded memory.

:func:`read_sessions` accepts

* OTLP JSON (one ``ExportTraceServiceRequest`` per line, or one document), or
* JSONL conversation logs, one conversation per line in any format
  :func:`tooleval.formats.import_conversation` reads, or
* MCP traffic logs, one JSON-RPC message per line (``tools/call`` requests
  and their responses; a failure is ``isError`` or a JSON-RPC error), one
  session per connection (:class:`tooleval.formats.mcp.McpLog`).

Spans are grouped into sessions by ``gen_ai.conversation.id`` /
``session.id`` (a span without one inherits the id seen on another span of
its trace), else by trace id. A session may be spread anywhere in the file,
so grouping cannot stream session by session; instead only the compact facts
of relevant spans are kept, in memory up to ``max_in_memory`` records, then in
a temporary SQLite file, so peak memory stays flat however large the input.
Sessions come out in order of first appearance.

>>> import json, tempfile, os
>>> line = {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "ab" * 16,
...     "spanId": "cd" * 8, "name": "execute_tool f", "startTimeUnixNano": "1",
...     "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
...                    {"key": "gen_ai.tool.name", "value": {"stringValue": "f"}}]}]}]}]}
>>> path = os.path.join(tempfile.mkdtemp(), "t.jsonl")
>>> _ = open(path, "w").write(json.dumps(line) + "\\n")
>>> with read_sessions(path) as sessions:
...     [(s.id, [c.name for c in s.calls]) for s in sessions]
[('abababababababababababababababab', ['f'])]
"""

from __future__ import annotations

import itertools
import os
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from tooleval.errors import InputError, ToolEvalError
from tooleval.formats.json_limits import loads as limited_loads
from tooleval.monitor.session import Session, assemble_session
from tooleval.traces.files import iter_facts, open_traces, sniff_layout, spool_stdin
from tooleval.traces.genai import SpanFacts
from tooleval.traces.otlp import IngestReport

__all__ = ["TraceSessions", "read_sessions", "sniff_traces"]


_BINARY_SUFFIXES = frozenset({".gz", ".pb", ".binpb", ".protobuf"})
_EXPECTED = "expected OTLP JSON traces or JSONL conversations (one JSON object per line)"


def check_traces_file(path: str | Path) -> None:
    """Refuse a file that cannot hold traces: empty, binary, CSV or other text that is not JSON.

    Raises :class:`~tooleval.errors.InputError` naming the file, so that
    ``monitor --fail-on`` never passes on a file it could not read at all.
    Compressed (gzip) and protobuf files (``.pb``, ``.binpb``) are left to
    their readers.
    """
    with open(path, "rb") as handle:
        head = handle.read(65536)
    if head.startswith(b"\x1f\x8b") or Path(path).suffix.lower() in _BINARY_SUFFIXES:
        return
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if not text:
        raise InputError(f"the file is empty; {_EXPECTED}", file=str(path))
    if b"\x00" in head:
        raise InputError(f"a binary file; {_EXPECTED}", file=str(path))
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # not just a character cut by the 64 KiB read
            raise InputError(
                f"not UTF-8 text (byte 0x{head[exc.start]:02x} at offset {exc.start}); {_EXPECTED}",
                file=str(path),
            ) from None
    if text[:1] not in (b"{", b"["):  # an array may hold OTLP requests; its reader decides
        first = text.split(b"\n", 1)[0][:60].decode("utf-8", "replace")
        kind = "CSV or other text" if b"," in text.split(b"\n", 1)[0] else "not JSON"
        raise InputError(f"{kind} (starts {first!r}); {_EXPECTED}", file=str(path))


def sniff_traces(path: str | Path) -> str:
    """``"otlp"`` or ``"conversations"``: what kind of traces file this is (``-``: otlp)."""
    return "conversations" if _layout(path) == "conversations" else "otlp"


def _layout(path: str | Path) -> str:
    """The file layout (see :func:`tooleval.traces.files.sniff_layout`)."""
    if str(path) == "-":
        return "otlp"  # standard input is spooled before it is looked at
    with open_traces(path) as stream:
        return sniff_layout(stream)[0]


class _Grouper:
    """Collects span facts per trace/session; spills to SQLite past a size limit."""

    def __init__(self, max_in_memory: int, spill_dir: str | None) -> None:
        self.max_in_memory = max_in_memory
        self.spill_dir = spill_dir
        self.facts: list[SpanFacts] = []
        self.trace_session: dict[str, str] = {}
        self.db: sqlite3.Connection | None = None
        self.db_path: str | None = None
        self.seq = 0

    def add_session_hint(self, trace_id: str, session_id: str) -> None:
        if self.db is not None:
            self.db.execute(
                "INSERT OR IGNORE INTO trace_session VALUES (?, ?)", (trace_id, session_id)
            )
        else:
            self.trace_session.setdefault(trace_id, session_id)
            self._maybe_spill()

    def add(self, facts: SpanFacts) -> None:
        self.seq += 1
        if self.db is not None:
            self._insert(self.seq, facts)
        else:
            self.facts.append(facts)
            self._maybe_spill()

    def _insert(self, seq: int, facts: SpanFacts) -> None:
        assert self.db is not None
        self.db.execute(
            "INSERT INTO facts VALUES (?, ?, ?, ?)",
            (seq, facts.trace_id, facts.session_id, orjson.dumps(facts.to_dict(), default=str)),
        )

    def _maybe_spill(self) -> None:
        if len(self.facts) + len(self.trace_session) <= self.max_in_memory:
            return
        fd, self.db_path = tempfile.mkstemp(
            prefix="tooleval-traces-", suffix=".db", dir=self.spill_dir
        )
        os.close(fd)
        self.db = sqlite3.connect(self.db_path)
        self.db.executescript(
            "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-16000;"
            "CREATE TABLE facts (seq INTEGER PRIMARY KEY, trace_id TEXT, session_id TEXT,"
            " payload BLOB);"
            "CREATE TABLE trace_session (trace_id TEXT PRIMARY KEY, session_id TEXT);"
        )
        start = self.seq - len(self.facts) + 1
        for offset, facts in enumerate(self.facts):
            self._insert(start + offset, facts)
        self.db.executemany(
            "INSERT OR IGNORE INTO trace_session VALUES (?, ?)", self.trace_session.items()
        )
        self.facts, self.trace_session = [], {}

    def finish(self) -> None:
        if self.db is not None:
            self.db.commit()
            # Key every fact by its session, numbered by first appearance, once.
            self.db.executescript(
                "CREATE TABLE keyed AS SELECT f.seq AS seq,"
                " COALESCE(f.session_id, t.session_id, f.trace_id) AS session, f.payload AS payload"
                " FROM facts f LEFT JOIN trace_session t ON t.trace_id = f.trace_id;"
                "DROP TABLE facts;"
                "CREATE TABLE firsts AS SELECT session, MIN(seq) AS first FROM keyed GROUP BY session;"
                "CREATE INDEX keyed_session ON keyed(session, seq);"
            )
            self.db.commit()

    def session_count(self) -> int:
        if self.db is not None:
            return self.db.execute("SELECT COUNT(*) FROM firsts").fetchone()[0]
        return len({self._key(f) for f in self.facts})

    def _key(self, facts: SpanFacts) -> str:
        return facts.session_id or self.trace_session.get(facts.trace_id) or facts.trace_id

    def __iter__(self) -> Iterator[Session]:
        if self.db is None:
            groups: dict[str, list[SpanFacts]] = {}
            for facts in self.facts:
                groups.setdefault(self._key(facts), []).append(facts)
            for key, group in groups.items():
                yield assemble_session(key, group)
            return
        # A second connection lets a caller iterate while another iteration is open.
        assert self.db_path is not None  # set together with self.db
        reader = sqlite3.connect(self.db_path)
        try:
            rows = reader.execute(
                "SELECT k.session, k.payload FROM firsts f JOIN keyed k ON k.session = f.session"
                " ORDER BY f.first, k.seq"
            )
            for key, keyed in itertools.groupby(rows, key=lambda r: r[0]):
                yield assemble_session(
                    key, [SpanFacts.from_dict(orjson.loads(p)) for _, p in keyed]
                )
        finally:
            reader.close()

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None
        if self.db_path and os.path.exists(self.db_path):
            os.unlink(self.db_path)
        self.db_path = None
        self.facts, self.trace_session = [], {}


class TraceSessions:
    """The sessions of a traces file; iterate as many times as needed, then close.

    ``report`` holds counts and every skipped span or line with its ids.
    """

    def __init__(
        self,
        grouper: _Grouper | None,
        logs: Path | None,
        report: IngestReport,
        *,
        layout: str = "jsonl",
        spooled: Path | None = None,
    ) -> None:
        self._grouper = grouper
        self._logs = logs
        self.report = report
        self.layout = layout
        self._spooled = spooled

    def __iter__(self) -> Iterator[Session]:
        if self._grouper is not None:
            yield from self._grouper
        elif self._logs is not None:
            yield from _iter_conversation_log(self._logs, IngestReport())

    def get(self, session_id: str) -> Session | None:
        """The session with this id (or None)."""
        return next((s for s in self if s.id == session_id), None)

    def close(self) -> None:
        if self._grouper is not None:
            self._grouper.close()
        if self._spooled is not None:
            self._spooled.unlink(missing_ok=True)
            self._spooled = None

    def __enter__(self) -> TraceSessions:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def read_sessions(
    path: str | Path, *, max_in_memory: int = 20_000, spill_dir: str | None = None
) -> TraceSessions:
    """Read a traces file (OTLP JSON/protobuf traces or logs, or conversation JSONL) into sessions.

    ``path`` may be ``-`` (standard input, copied to a temporary file first:
    sessions can be spread anywhere in it) and may be gzipped. Malformed spans
    and lines are skipped and listed in ``.report.problems``. Raises
    :class:`~tooleval.errors.InputError` only when the file itself cannot be
    opened or holds no traces at all (empty, binary, not JSON).
    """
    spooled = None
    if str(path) == "-":
        spooled = spool_stdin(spill_dir)
        path = spooled
    try:
        return _read_sessions(Path(path), max_in_memory, spill_dir, spooled)
    except BaseException:
        if spooled is not None:
            spooled.unlink(missing_ok=True)
        raise


def _read_sessions(
    path: Path, max_in_memory: int, spill_dir: str | None, spooled: Path | None
) -> TraceSessions:
    shown = "-" if spooled is not None else str(path)
    if not path.is_file():
        raise InputError("traces file not found", path=shown)
    layout = _layout(path)
    if layout == "empty":
        raise InputError(f"the input is empty; {_EXPECTED}", file=shown)
    if layout != "protobuf":
        check_traces_file(path)
    report = IngestReport()
    if layout == "conversations":
        count = calls = 0
        for session in _iter_conversation_log(path, report):
            count += 1
            calls += len(session.calls)
        report.sessions, report.tool_calls = count, calls
        return TraceSessions(None, path, report, layout=layout, spooled=spooled)
    grouper = _Grouper(max_in_memory, spill_dir)
    try:
        with open_traces(path) as stream:
            for facts in iter_facts(stream, report=report):
                if facts.session_id:
                    grouper.add_session_hint(facts.trace_id, facts.session_id)
                if facts.has_content:
                    report.tool_calls += sum(1 for c in facts.calls if c.executed)
                    grouper.add(facts)
        grouper.finish()
        report.sessions = grouper.session_count()
    except BaseException:
        grouper.close()
        raise
    return TraceSessions(grouper, None, report, layout=layout, spooled=spooled)


def _mcp_sessions(done: list[tuple[int, list[Any]]]) -> Iterator[Session]:
    from tooleval.model import Sample

    for first, messages in done:
        sample = Sample(input="", messages=messages)
        yield Session.from_sample(sample, id=f"line-{first}", source="mcp")


def _iter_conversation_log(path: Path, report: IngestReport) -> Iterator[Session]:
    from tooleval.formats import detect, import_conversation
    from tooleval.formats.mcp import McpLog, is_jsonrpc_message
    from tooleval.formats.outcome import carries_status

    mcp = McpLog()  # lines that are single JSON-RPC messages: MCP traffic, one session a connection
    with open_traces(path) as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            report.lines += 1
            try:
                data = limited_loads(raw)
            except ValueError as exc:
                report.problem(f"invalid JSON: {exc}", line=number)
                continue
            except ToolEvalError as exc:  # valid JSON past the nesting limit
                report.problem(f"conversation unreadable: {exc}", line=number)
                continue
            if is_jsonrpc_message(data):
                try:
                    mcp.add(data, line=number)
                except ToolEvalError as exc:
                    report.problem(f"MCP message left out: {exc}", line=number)
                yield from _mcp_sessions(mcp.take())
                continue
            try:
                name = detect(data)
                sample = import_conversation(data, name)
            except ToolEvalError as exc:
                report.problem(f"conversation unreadable: {exc}", line=number)
                continue
            except (
                TypeError,
                AttributeError,
                KeyError,
                IndexError,
                ValueError,
                RecursionError,
            ) as exc:
                report.problem(
                    f"conversation unreadable: cannot tell its format ({type(exc).__name__}: {exc})",
                    line=number,
                )
                continue
            session_id = sample.id
            if session_id is None and isinstance(data, dict):
                session_id = data.get("session_id") or data.get("id")
            session = Session.from_sample(
                sample, id=str(session_id) if session_id is not None else f"line-{number}"
            )
            if not carries_status(name, data) and any(
                c.call.result is not None for c in session.calls
            ):
                report.without_status[name] = report.without_status.get(name, 0) + 1
            yield session
    yield from _mcp_sessions(mcp.finish())
