"""``error_ignored``: a failed call the final answer glosses over, decided from structure first.

A tool's **last** failed call is *ignored* when

1. the session has a final answer, given after the call (when both times are known);
2. no later call of the same tool succeeded (a later call whose outcome was
   never seen makes the case undecidable: nothing is reported);
3. and then, in order:

   * the answer **reports the failure** (a strong failure phrase, see
     :data:`FAILURE_PHRASES`, after idioms such as "no problem" are set
     aside) → not ignored;
   * the tool **changes state** (:func:`is_state_changing`) and the answer
     **claims the effect** (:data:`SUCCESS_PHRASES`: "is on its way", "has
     been", "successfully", "done", ...) → ignored (shape ``claimed_effect``),
     whatever polite words surround the claim ("Sorry for the wait! Your
     refund has been issued");
   * the answer shows trouble only in weak words (:data:`WEAK_PHRASES`:
     "sorry", "issue", "try again") → not ignored;
   * otherwise → ignored (shape ``unmentioned``).

Words are thus a secondary signal: the structure (a failed call, no recovery,
an answer after it, a state-changing tool whose effect is claimed) decides first.

>>> from tooleval.model import ToolCall
>>> from tooleval.monitor.session import Session, TracedCall
>>> bad = TracedCall(ToolCall("issue_refund", {"id": 7}, result={"error": "declined"}, is_error=True))
>>> [f.evidence["shape"] for f in error_ignored(Session("s", [bad],
...     output="No problem! Your refund is on its way."))]
['claimed_effect']
>>> error_ignored(Session("s", [bad], output="The refund could not be processed: declined."))
[]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from tooleval.monitor.session import Session, TracedCall

__all__ = [
    "FAILURE_PHRASES",
    "IDIOMS",
    "SUCCESS_PHRASES",
    "WEAK_PHRASES",
    "admits_failure",
    "claims_effect",
    "error_ignored",
    "is_state_changing",
]

#: Phrases that report a failure (whole words, case-insensitive).
FAILURE_PHRASES = (
    r"fail(?:s|ed|ure|ures|ing)?",
    r"unsuccessful(?:ly)?",
    r"could\s*(?:not|n[’']t)",
    r"can\s*(?:not|[’']t)",
    r"was\s*(?:not|n[’']t)\s+able",
    r"were\s*(?:not|n[’']t)\s+able",
    r"not\s+able\s+to",
    r"unable",
    r"errors?",
    r"declined",
    r"denied",
    r"rejected",
    r"refused",
    r"unavailable",
    r"not\s+available",
    r"went\s+wrong",
    r"timed\s+out",
    r"time\s*out",
    r"did\s*(?:not|n[’']t)\s+go\s+through",
    r"(?:has|have|was|were|is)\s*(?:not|n[’']t)\s+(?:been\s+)?(?:processed|completed|possible|"
    r"successful|sent|issued|created|booked|cancell?ed|updated|applied|made|found)",
    r"not\s+found",
    r"unfortunately",
    r"(?:is|are)\s+down",
    r"outage",
    r"invalid",
    r"expired",
    r"insufficient",
)
#: Polite or vague words: an acknowledgement only when the answer claims nothing.
WEAK_PHRASES = (
    r"sorry",
    r"apologi[sz]e",
    r"problems?",
    r"issues?",
    r"troubles?",
    r"try\s+again",
    r"hiccup",
    r"retry",
)
#: Phrases that claim an action took effect.
SUCCESS_PHRASES = (
    r"successfully",
    r"succeeded",
    r"(?:has|have)\s+been",
    r"is\s+on\s+(?:its|the)\s+way",
    r"on\s+(?:its|their|the)\s+way",
    r"(?:is|are|was|were)\s+(?:now\s+)?(?:confirmed|booked|cancell?ed|processed|sent|issued|"
    r"placed|scheduled|updated|created|refunded|completed|done|submitted|approved|reserved|"
    r"transferred|paid|shipped|deleted|removed|changed|applied|added|registered)",
    r"all\s+set",
    r"all\s+done",
    r"done",
    r"went\s+through",
    r"i(?:[’']ve|\s+have)\s+(?:\w+\s+)?(?:sent|issued|processed|booked|cancell?ed|placed|"
    r"scheduled|updated|created|refunded|completed|submitted|made|added|changed|transferred|"
    r"reserved|applied|removed|deleted|registered|paid)",
    r"you(?:[’']ll|\s+will)\s+(?:receive|get|see)",
    r"should\s+(?:arrive|appear|reach|receive|see)",
    r"confirmation",
    r"taken\s+care\s+of",
)
#: Idioms that contain failure or weak words but say nothing went wrong.
IDIOMS = (
    r"no\s+problems?",
    r"not\s+a\s+problem",
    r"no\s+issues?",
    r"no\s+errors?",
    r"no\s+worries",
    r"without\s+(?:any\s+)?(?:problems?|issues?|errors?|trouble|fail)",
    r"never\s+fails?",
    r"error[-\s]free",
    r"don[’']?t\s+hesitate",
    r"can[’']?t\s+wait",
)


def _compile(phrases: Iterable[str]) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(phrases) + r")\b", re.IGNORECASE)


_FAILURE = _compile(FAILURE_PHRASES)
_WEAK = _compile(WEAK_PHRASES)
_SUCCESS = _compile(SUCCESS_PHRASES)
_IDIOMS = _compile(IDIOMS)

_READ_ONLY = frozenset(
    [
        "get",
        "list",
        "search",
        "find",
        "lookup",
        "look",
        "fetch",
        "read",
        "query",
        "check",
        "show",
        "describe",
        "retrieve",
        "view",
        "count",
        "calculate",
        "compute",
        "validate",
        "verify",
        "estimate",
        "browse",
        "load",
        "inspect",
        "status",
        "preview",
        "quote",
        "summarize",
        "summarise",
        "lookup_",
        "info",
        "help",
        "explain",
        "translate",
        "convert",
        "weather",
        "price",
    ]
)
_WRITE = frozenset(
    [
        "create",
        "update",
        "delete",
        "remove",
        "cancel",
        "refund",
        "book",
        "reserve",
        "send",
        "pay",
        "charge",
        "transfer",
        "submit",
        "place",
        "post",
        "write",
        "set",
        "add",
        "modify",
        "change",
        "issue",
        "approve",
        "reject",
        "schedule",
        "publish",
        "upload",
        "deploy",
        "apply",
        "assign",
        "close",
        "withdraw",
        "deposit",
        "purchase",
        "buy",
        "sell",
        "return",
        "exchange",
        "reset",
        "register",
        "subscribe",
        "unsubscribe",
        "grant",
        "revoke",
        "insert",
        "edit",
        "move",
        "rename",
        "save",
        "commit",
        "merge",
        "restart",
        "stop",
        "enable",
        "disable",
        "install",
        "email",
        "notify",
        "message",
        "ship",
        "dispatch",
        "confirm",
        "upgrade",
        "downgrade",
        "order",
        "rebook",
        "refund_order",
        "void",
        "credit",
        "debit",
        "open",
        "lock",
        "unlock",
        "block",
        "unblock",
        "archive",
    ]
)


def _tokens(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [t for t in re.split(r"[^a-zA-Z0-9]+", spaced.lower()) if t]


def is_state_changing(
    name: str, *, state_changing: Sequence[str] = (), read_only: Sequence[str] = ()
) -> bool:
    """Whether a tool changes state: the user's lists first, then its name's words.

    A name whose first word is a read verb (``get_``, ``search``, ``list``...)
    is read-only; one that holds a write word (``refund``, ``cancel``,
    ``send``, ``book``...) changes state; anything else is read-only.

    >>> is_state_changing("issue_refund"), is_state_changing("get_order"), is_state_changing("cancelOrder")
    (True, False, True)
    """
    if name in state_changing:
        return True
    if name in read_only:
        return False
    tokens = _tokens(name)
    if not tokens or tokens[0] in _READ_ONLY:
        return False
    return any(t in _WRITE for t in tokens)


def _plain(answer: str) -> str:
    return _IDIOMS.sub(" ", answer)


def admits_failure(answer: str) -> str | None:
    """The strong failure phrase the answer uses (idioms set aside), else None.

    >>> admits_failure("Sorry, I was unable to cancel the order."), admits_failure("Done!")
    ('unable', None)
    """
    match = _FAILURE.search(_plain(answer))
    return match.group(0) if match else None


def claims_effect(answer: str) -> str | None:
    """The phrase by which the answer claims an action took effect, else None.

    >>> claims_effect("Your order has been cancelled."), claims_effect("Let me check.")
    ('has been', None)
    """
    match = _SUCCESS.search(_plain(answer))
    return match.group(0) if match else None


def _weak(answer: str) -> str | None:
    match = _WEAK.search(_plain(answer))
    return match.group(0) if match else None


def _after(session: Session, call: TracedCall) -> bool:
    if session.output_ns is None or call.start_ns is None:
        return True
    return session.output_ns >= call.start_ns


def error_ignored(
    session: Session, *, state_changing: Sequence[str] = (), read_only: Sequence[str] = ()
) -> list[Any]:
    """Failed calls the final answer glosses over (see the module docstring for the rules)."""
    from tooleval.monitor.detectors import _finding

    answer = session.output or ""
    if not answer.strip():
        return []
    last_failed: dict[str, int] = {}
    for index, traced in enumerate(session.calls):
        if traced.is_error:
            last_failed[traced.name] = index
    findings = []
    for name, index in sorted(last_failed.items(), key=lambda kv: kv[1]):
        traced = session.calls[index]
        # every later call of the tool (after its last failure) succeeded or has an unseen outcome
        if any(c.name == name for c in session.calls[index + 1 :]) or not _after(session, traced):
            continue
        writes = is_state_changing(name, state_changing=state_changing, read_only=read_only)
        admitted = admits_failure(answer)
        if admitted:
            continue
        claim = claims_effect(answer)
        if writes and claim:
            shape, message = (
                "claimed_effect",
                f"{name} failed, was not retried successfully, and the final answer claims "
                f"it took effect ({claim!r})",
            )
        elif _weak(answer):
            continue
        else:
            shape, message = (
                "unmentioned",
                f"{name} failed and the final answer neither retried it nor mentioned the failure",
            )
        findings.append(
            _finding(
                "error_ignored",
                session,
                [index],
                message,
                shape=shape,
                state_changing=writes,
                claim=claim,
                error=traced.error_type or "error",
                result=traced.call.result,
                final_output=answer[:300],
            )
        )
    return findings
