"""A deterministic audit of a simulated user: did the *user* break the episode?

A failed episode is only the agent's failure when the user played its part.
:func:`audit_user` reads the simulator's messages (and the agent's replies)
and names each fault it finds:

- ``errored``: the simulator raised, timed out or answered nothing;
- ``leaked``: a user message repeats a long run of the task instruction word
  for word (``LEAK_WORDS`` words or more), instead of speaking as the user;
- ``ended_early``: the user ended the episode before it said everything the
  instruction asks for (an id, number, e-mail or quoted text of the
  instruction that no user message mentions);
- ``role_swap``: a user message speaks as the agent (offers help, says it is
  an assistant, or repeats an agent reply verbatim);
- ``looped``: the user said the same thing ``LOOP_REPEATS`` times, or twice in a row.

>>> audit_user("Cancel order #W42.", ["Hi, please cancel #W42.", "###STOP###"], ["Done."],
...            stopped=True).passed
True
>>> audit_user("Cancel order #W42 and #W43.", ["cancel #W42", "###STOP###"], ["ok"],
...            stopped=True).faults
['ended_early']
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["LEAK_WORDS", "LOOP_REPEATS", "UserAudit", "audit_user", "requested_items"]

LEAK_WORDS = 12
LOOP_REPEATS = 3
_AGENT_MARKERS = (
    "how can i help",
    "how may i help",
    "how can i assist",
    "how may i assist",
    "i am an ai",
    "i'm an ai",
    "as an ai",
    "as your assistant",
    "i am the assistant",
    "i'm the assistant",
)
# What an instruction asks for that a user must say: ids, numbers, e-mails, quoted text.
_ITEMS = re.compile(r"#?\w*\d[\w-]*|[\w.+-]+@[\w-]+\.[\w.]+|\"[^\"]+\"|'[^']{2,}'")


@dataclass(frozen=True, slots=True)
class UserAudit:
    """The audit's verdict: ``passed`` when no fault was found; each fault with its reason."""

    faults: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.faults

    def to_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "faults": list(self.faults), "reasons": list(self.reasons)}


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9#@._-]+", text.lower())


def _normal(text: str) -> str:
    return " ".join(_words(text))


def requested_items(instruction: str) -> list[str]:
    """The ids, numbers, e-mails and quoted texts of an instruction, in order.

    >>> requested_items('Exchange order #W2378156 for the "blue" one, user yusuf_54, zip 91040.')
    ['#W2378156', '"blue"', 'yusuf_54', '91040']
    """
    items = [m.strip(".,;:") for m in _ITEMS.findall(instruction)]
    return list(dict.fromkeys(i for i in items if i))


def _leak(instruction: str, message: str) -> bool:
    words = _words(instruction)
    if len(words) < LEAK_WORDS:
        return bool(words) and _normal(instruction) in _normal(message) and len(words) > 3
    said = f" {_normal(message)} "
    return any(
        f" {' '.join(words[i : i + LEAK_WORDS])} " in said
        for i in range(len(words) - LEAK_WORDS + 1)
    )


def audit_user(
    instruction: str,
    user_messages: Sequence[str],
    agent_messages: Sequence[str],
    *,
    stopped: bool,
    stop: str = "###STOP###",
    error: str | None = None,
) -> UserAudit:
    """Audit one episode's simulated user (see the module docstring)."""
    faults: list[str] = []
    reasons: list[str] = []

    def fault(name: str, reason: str) -> None:
        if name not in faults:
            faults.append(name)
            reasons.append(reason)

    if error is not None:
        fault("errored", f"the simulator failed: {error}")
    spoken = [m.replace(stop, "").strip() for m in user_messages]
    for number, text in enumerate(spoken, 1):
        if not text and not (number == len(spoken) and stopped):
            fault("errored", f"user message {number} is empty")
        if instruction and _leak(instruction, text):
            fault("leaked", f"user message {number} repeats the instruction word for word")
        lowered = text.lower()
        marker = next((m for m in _AGENT_MARKERS if m in lowered), None)
        if marker is not None:
            fault("role_swap", f"user message {number} speaks as the agent ({marker!r})")
        elif text and any(_normal(text) == _normal(a) for a in agent_messages if a):
            fault("role_swap", f"user message {number} repeats an agent reply")
    if stopped:
        said = " ".join(spoken).lower()
        missing = [i for i in requested_items(instruction) if i.strip("\"'").lower() not in said]
        if missing:
            fault(
                "ended_early",
                f"the user ended the episode without saying {', '.join(missing[:5])} "
                "from the instruction",
            )
    normal = [_normal(t) for t in spoken if t]
    repeated = [t for t, n in Counter(normal).items() if n >= LOOP_REPEATS]
    repeated += [a for a, b in zip(normal, normal[1:], strict=False) if a == b]
    if repeated:
        fault("looped", f"the user repeated itself: {repeated[0][:80]!r}")
    return UserAudit(faults, reasons)
