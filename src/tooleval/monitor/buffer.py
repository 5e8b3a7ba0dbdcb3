"""The open sessions of a stopped receiver, kept in a file until it starts again.

A receiver stopped (SIGTERM) while sessions are still open must neither store
a phantom partial row for each nor store the whole session again once the
rest arrives after the restart. So :meth:`OtlpReceiver.stop
<tooleval.monitor.serve.OtlpReceiver.stop>` stores the sessions that went
idle as usual, and writes the span facts of the open ones here (JSON lines:
first the trace-to-session map, then one fact per line, written atomically);
the next start reads them back into the buffer, as if they had just arrived,
and removes the file. The rest of a session then joins its first part, and
the session is stored once, whole, when it goes idle.

Read back like input: a line that is not a fact is skipped and counted, and
a file that cannot be read at all is reported, never a crash.

>>> import tempfile, pathlib
>>> from tooleval.traces.genai import SpanCall, SpanFacts
>>> path = pathlib.Path(tempfile.mkdtemp()) / "open.jsonl"
>>> write_open_sessions(path, [SpanFacts("t1", "s1", calls=[SpanCall("f")])], {"t1": "conv"})
1
>>> facts, sessions, skipped = read_open_sessions(path)
>>> [f.trace_id for f in facts], sessions, skipped, path.exists()
(['t1'], {'t1': 'conv'}, 0, False)
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tooleval.io_atomic import atomic_write
from tooleval.traces.genai import SpanFacts

__all__ = ["read_open_sessions", "write_open_sessions"]


def write_open_sessions(
    path: Path, facts: Sequence[SpanFacts], session_of: Mapping[str, str]
) -> int:
    """Write the open sessions' facts to ``path`` (removed when there are none); return how many."""
    if not facts:
        path.unlink(missing_ok=True)
        return 0
    lines = [json.dumps({"session_of": dict(session_of)}, default=str)]
    lines += [json.dumps({"fact": fact.to_dict()}, default=str) for fact in facts]
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(path) as handle:
        handle.write(("\n".join(lines) + "\n").encode("utf-8"))
    return len(facts)


def read_open_sessions(path: Path) -> tuple[list[SpanFacts], dict[str, str], int]:
    """``(facts, trace -> session, lines skipped)`` from ``path``, which is then removed."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return [], {}, 0
    facts: list[SpanFacts] = []
    session_of: dict[str, str] = {}
    skipped = 0
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            record: Any = json.loads(line)
            if "session_of" in record:
                mapping = record["session_of"]
                session_of.update({str(k): str(v) for k, v in dict(mapping).items()})
            else:
                fact = SpanFacts.from_dict(record["fact"])
                if not isinstance(fact.trace_id, str) or not isinstance(fact.span_id, str):
                    raise TypeError("trace and span ids must be text")
                facts.append(fact)
        except (ValueError, TypeError, KeyError, AttributeError):
            skipped += 1
    path.unlink(missing_ok=True)
    return facts, session_of, skipped
