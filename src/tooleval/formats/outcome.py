"""Whether a tool call failed, read from its result when the format records no status.

Some formats say whether a tool call failed: Anthropic ``tool_result.is_error``,
MCP ``isError``, LangChain ``ToolMessage.status``, Gemini's
``{"error": ...}`` response and an OpenAI Responses ``mcp_call.error`` (the
readers set ``is_error``), and an OTel span's status ERROR. OpenAI chat tool
messages, OpenAI Responses ``function_call_output``, ragas tool messages and
canonical rows without ``is_error`` carry no status: the outcome is only in
the text. :func:`error_in_result` reads the conventions tools and agent
frameworks use to report a failure there:

* an object with a non-empty ``error`` (``errors``, ``error_message``,
  ``exception``), ``isError``/``is_error`` true, ``success``/``ok`` false,
  or a ``status`` of ``error``/``failed``/``failure`` (also as JSON text);
* text that starts ``Error:``, ``ERROR -``, ``Failed:``, ``Exception:``,
  ``[error]``, ``Failed to``, ``Unable to``, ``Could not``,
  ``Fatal:``, a Python exception name (``TimeoutError: ...``),
  ``Traceback (most recent call last)``, or an HTTP error status line
  (``HTTP 503``, ``500 Internal Server Error``);
* the first text part of a list of content parts, by the same rules.

A result that merely mentions an error (``"No errors found"``, ``"errors: 0"``,
``{"error": null}``) is not a failure.

>>> error_in_result("Error: payment gateway unavailable")
'payment gateway unavailable'
>>> error_in_result('{"error": "timeout"}'), error_in_result({"status": "failed", "message": "no stock"})
('timeout', 'no stock')
>>> error_in_result("No errors found."), error_in_result({"error": None, "rows": 3})
(None, None)
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["STATUS_FORMATS", "carries_status", "error_in_result"]

#: Formats whose tool results say whether the call failed (the readers set ``is_error``).
STATUS_FORMATS = frozenset({"anthropic", "gemini", "langchain", "mcp"})

_ERROR_KEYS = ("error", "errors", "error_message", "errorMessage", "exception")
_FLAG_KEYS = ("isError", "is_error")
_SUCCESS_KEYS = ("success", "ok")
_STATUS_KEYS = ("status", "state", "outcome")
_FAILED = frozenset({"error", "failed", "failure", "fail", "errored"})
_MESSAGE_KEYS = ("message", "detail", "details", "reason", "error_description")
_PARSE_LIMIT = 1_000_000  # JSON text longer than this is read as text, not parsed
_SHOWN = 200  # characters of the failure kept as its message

_TEXT = re.compile(
    r"""^\s*(?:
        (?:error|exception|fatal|failed|failure)\s*(?:[:\-!]|\]\s)\s*(?P<rest>.*)
      | \[(?:error|fatal)\]\s*(?P<bracket>.*)
      | (?P<unable>(?:failed|unable|could\ not)\ to\ .*)
      | (?P<exc>[A-Z][A-Za-z0-9_.]*(?:Error|Exception)(?::|\(|\s*$).*)
      | (?P<tb>Traceback\ \(most\ recent\ call\ last\).*)
      | (?P<http>(?:HTTP(?:/[\d.]+)?\s+[45]\d\d\b|[45]\d\d\s+(?:Bad\ Request|Unauthorized|
            Payment\ Required|Forbidden|Not\ Found|Method\ Not\ Allowed|Request\ Timeout|
            Conflict|Gone|Too\ Many\ Requests|Internal\ Server\ Error|Not\ Implemented|
            Bad\ Gateway|Service\ Unavailable|Gateway\ Timeout)\b).*)
    )""",
    re.IGNORECASE | re.VERBOSE | re.DOTALL,
)


def _shown(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "..."


def _present(value: Any) -> bool:
    return value not in (None, False, "", [], {}, 0)


def _from_mapping(value: Mapping[str, Any]) -> str | None:
    for key in _ERROR_KEYS:
        found = value.get(key)
        if _present(found):
            if isinstance(found, Mapping):
                message = next((found[k] for k in _MESSAGE_KEYS if _present(found.get(k))), found)
                return _shown(str(message))
            return _shown(found if isinstance(found, str) else json.dumps(found, default=str))
    message = next((value[k] for k in _MESSAGE_KEYS if _present(value.get(k))), None)
    for key in _FLAG_KEYS:
        if value.get(key) is True:
            return _shown(str(message or value.get("content") or key))
    for key in _SUCCESS_KEYS:
        if value.get(key) is False:
            return _shown(str(message or f"{key}: false"))
    for key in _STATUS_KEYS:
        status = value.get(key)
        if isinstance(status, str) and status.strip().lower() in _FAILED:
            return _shown(str(message or f"{key}: {status}"))
    return None


def _from_text(text: str) -> str | None:
    stripped = text.strip()
    if stripped[:1] == "{" and len(stripped) <= _PARSE_LIMIT:
        try:
            parsed = json.loads(stripped)
        except ValueError:
            parsed = None
        if isinstance(parsed, Mapping):
            return _from_mapping(parsed)
    match = _TEXT.match(stripped)
    if match is None:
        return None
    rest = match.group("rest") or match.group("bracket") or match.group("unable")
    return _shown(rest if rest else stripped)


def error_in_result(content: Any) -> str | None:
    """The failure a tool result reports by convention (its message), else None.

    ``content`` is a tool result as read: text, an object, or a list of
    content parts (``{"type": "text", "text": ...}``).
    """
    if isinstance(content, str):
        return _from_text(content)
    if isinstance(content, Mapping):
        return _from_mapping(content)
    if isinstance(content, list):
        for part in content:
            if isinstance(part, str):
                return _from_text(part)
            if isinstance(part, Mapping) and isinstance(part.get("text"), str):
                return _from_text(part["text"])
    return None


def carries_status(format: str, data: Any = None) -> bool:
    """Whether tool results of ``format`` say whether the call failed.

    A canonical row carries a status when one of its tool messages has
    ``is_error``; ``data`` is that row (or its messages).

    >>> carries_status("anthropic"), carries_status("openai_chat")
    (True, False)
    >>> carries_status("canonical", {"messages": [{"role": "tool", "content": "ok", "is_error": False}]})
    True
    """
    if format in STATUS_FORMATS:
        return True
    if format != "canonical":
        return False
    messages = data.get("messages") if isinstance(data, Mapping) else data
    return isinstance(messages, list) and any(
        isinstance(m, Mapping) and m.get("role") == "tool" and "is_error" in m for m in messages
    )
