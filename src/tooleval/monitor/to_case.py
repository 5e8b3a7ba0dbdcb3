"""Turn a production session into an offline regression case.

The row has the session's ``input``, its rebuilt ``messages``, the
``tools_called`` and the final ``output``, and **no expected calls yet**:
``expected_tools`` is ``null`` and ``metadata.needs_expected_tools`` is
``true``. A person writes the expected calls in and removes the flag.

Why ``null`` and not ``[]``: in a dataset ``[]`` is a real expectation ("call
no tool", restraint) and would silently score a forgotten case; ``null`` means
"not bound", so reference-based metrics report the row as *unscored* with a
reason until someone fills it in.

>>> from tooleval.model import ToolCall
>>> from tooleval.monitor.session import Session, TracedCall
>>> row = session_to_case(Session("s1", [TracedCall(ToolCall("f", {"a": 1}))], input="hi"))
>>> row["expected_tools"], row["metadata"]["needs_expected_tools"], row["tools_called"][0]["name"]
(None, True, 'f')
"""

from __future__ import annotations

from typing import Any

from tooleval.monitor.session import Session

__all__ = ["NEEDS_EXPECTED_NOTE", "session_to_case"]

NEEDS_EXPECTED_NOTE = (
    "captured from production traces; write the calls the agent should have made in "
    "expected_tools ([] means 'call no tool') and remove needs_expected_tools"
)


def session_to_case(session: Session) -> dict[str, Any]:
    """A canonical dataset row for ``session`` with ``expected_tools`` left to fill in."""
    from tooleval.formats import sample_to_row

    row = sample_to_row(session.to_sample())
    row["expected_tools"] = None
    metadata = dict(row.get("metadata") or {})
    metadata["needs_expected_tools"] = True
    metadata["note"] = NEEDS_EXPECTED_NOTE
    row["metadata"] = metadata
    return row
