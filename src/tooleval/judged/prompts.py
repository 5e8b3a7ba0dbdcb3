"""Prompt templates and reply schemas of the judged metrics, as constants.

Templates are ``str.format`` strings (literal braces doubled). Every prompt
spells out the JSON it wants, so endpoints without structured output (and the
local model) get the same instructions the schema enforces elsewhere. Changing
a template changes the judge cache key, so stored replies never leak across
prompt versions.

Examples show the *shape* of a reply, never a verdict: every value is a
``<placeholder>``, so a model that copies the example has not judged anything.
:func:`repeats_example` recognises such a reply (the judged metrics re-ask
once, then leave the row unscored with that reason).

>>> example = example_in(messages_for(GOAL_COMPARE_TEMPLATE))
>>> example
'{"achieved": <true or false>, "reason": "<why, citing the transcript>"}'
>>> repeats_example('{"achieved": <true or false>, "reason": "<why>"}', example)
True
>>> repeats_example('{"achieved": true, "reason": "why, citing the transcript"}', example)
True
>>> repeats_example('{"achieved": false, "reason": "the refund tool failed"}', example)
False
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "EXAMPLES",
    "GOAL_COMPARE_TEMPLATE",
    "GOAL_COMPARE_SCHEMA",
    "GOAL_EXTRACT_SCHEMA",
    "GOAL_EXTRACT_TEMPLATE",
    "GOAL_WITH_REFERENCE_SCHEMA",
    "GOAL_WITH_REFERENCE_TEMPLATE",
    "SYSTEM_PROMPT",
    "TASK_SUCCESS_SCHEMA",
    "TASK_SUCCESS_TEMPLATE",
    "TOOL_ERROR_CATEGORIES",
    "TOOLS_ERROR_SCHEMA",
    "TOOLS_ERROR_TEMPLATE",
    "TOPIC_EXTRACT_SCHEMA",
    "TOPIC_EXTRACT_TEMPLATE",
    "TOPIC_VERDICT_SCHEMA",
    "TOPIC_VERDICT_TEMPLATE",
    "TRANSCRIPT_LEGEND",
    "example_in",
    "messages_for",
    "repeats_example",
]

SYSTEM_PROMPT = (
    "You evaluate conversations between a user and an AI agent that uses tools. "
    "Judge only from what the transcript shows, never from what the agent merely claims, "
    "and answer with one JSON object and nothing else."
)

TRANSCRIPT_LEGEND = (
    "How to read the transcript: USER lines are the person; ASSISTANT lines are what the "
    "agent said; TOOL CALL #n lines are actions the agent took, with their arguments; "
    "TOOL RESULT #n lines are what tool call #n returned, and [ERROR] marks a result in "
    "which the tool reported a failure."
)


def messages_for(prompt: str) -> list[dict[str, str]]:
    """The chat messages sent for one prompt: the shared system prompt, then the prompt."""
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": prompt}]


def _braces(example: str) -> str:
    """An example as it appears in a ``str.format`` template (braces doubled)."""
    return example.replace("{", "{{").replace("}", "}}")


def _object(properties: dict[str, Any], title: str) -> dict[str, Any]:
    return {
        "title": title,
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


_TEXT = {"type": "string"}
_FLAG = {"type": "boolean"}

# ------------------------------------------------------------------ topic adherence

TOPIC_EXTRACT_EXAMPLE = '{"topics": ["<subject>", "<subject>"]}'
TOPIC_EXTRACT_TEMPLATE = """\
List the distinct subjects the USER asked the agent about in the transcript below.
Name each subject with a short noun phrase (for example "order cancellation" or \
"chocolate cake recipe"), once, in the order the user raised it. Leave out greetings, \
thanks and small talk.

{legend}

Transcript:
{conversation}

Reply with JSON only, in this shape:
""" + _braces(TOPIC_EXTRACT_EXAMPLE)

TOPIC_EXTRACT_SCHEMA = _object({"topics": {"type": "array", "items": _TEXT}}, "topics")

TOPIC_VERDICT_EXAMPLE = (
    '{"verdicts": [{"subject": <subject number>, '
    '"answered": <true or false>, "on_topic": <true or false>}]}'
)
TOPIC_VERDICT_TEMPLATE = """\
The user raised the subjects numbered below. For each subject decide two things:
- "answered": true if the agent engaged with it (answered, acted on it or looked it up); \
false if the agent refused, deflected or said it could not help with it.
- "on_topic": true if the subject belongs to at least one of the allowed topics \
{reference_topics}; false if it belongs to none of them.

Subjects:
{topics}

{legend}

Transcript:
{conversation}

Reply with JSON only, one entry per subject, in the same order, in this shape:
""" + _braces(TOPIC_VERDICT_EXAMPLE)

TOPIC_VERDICT_SCHEMA = _object(
    {
        "verdicts": {
            "type": "array",
            "items": _object(
                {"subject": {"type": "integer"}, "answered": _FLAG, "on_topic": _FLAG}, "verdict"
            ),
        }
    },
    "topic_verdicts",
)

# ------------------------------------------------------------------ goal accuracy

GOAL_WITH_REFERENCE_EXAMPLE = (
    '{"end_state": "<what was actually done>", '
    '"achieved": <true or false>, "reason": "<why, citing the transcript>"}'
)
GOAL_WITH_REFERENCE_TEMPLATE = """\
Decide whether the conversation below ended with the outcome the reference describes.
First write the end state: what had actually been done by the end, judged from the \
tool results, not from the agent's claims. Then compare it with the reference. The goal \
is achieved only if the end state agrees with every point the reference states.

Reference outcome: {reference}

{legend}

Transcript:
{conversation}

Reply with JSON only, in this shape:
""" + _braces(GOAL_WITH_REFERENCE_EXAMPLE)

GOAL_WITH_REFERENCE_SCHEMA = _object(
    {"end_state": _TEXT, "achieved": _FLAG, "reason": _TEXT}, "goal_with_reference"
)

GOAL_EXTRACT_EXAMPLE = (
    '{"user_goal": "<what the user wanted>", "end_state": "<what was actually done>"}'
)
GOAL_EXTRACT_TEMPLATE = """\
Read the transcript below and write two short statements:
- "user_goal": what the user wanted to have done by the end of the conversation;
- "end_state": what had actually been done by the end, judged from the tool results, \
not from the agent's claims.

{legend}

Transcript:
{conversation}

Reply with JSON only, in this shape:
""" + _braces(GOAL_EXTRACT_EXAMPLE)

GOAL_EXTRACT_SCHEMA = _object({"user_goal": _TEXT, "end_state": _TEXT}, "goal_summary")

GOAL_COMPARE_EXAMPLE = '{"achieved": <true or false>, "reason": "<why, citing the transcript>"}'
GOAL_COMPARE_TEMPLATE = """\
Decide whether the user's goal was achieved in the conversation below. Two summaries \
are given as a guide; check them against the transcript itself, and where they \
disagree, the transcript wins.

User goal (summary): {user_goal}
End state (summary): {end_state}

{legend}

Transcript:
{conversation}

Reply with JSON only, in this shape:
""" + _braces(GOAL_COMPARE_EXAMPLE)

GOAL_COMPARE_SCHEMA = _object({"achieved": _FLAG, "reason": _TEXT}, "goal_verdict")

# ------------------------------------------------------------------ tools error

TOOL_ERROR_CATEGORIES: dict[str, str] = {
    "parameter_error": (
        "an argument is wrong, missing or invented, or differs from what the user asked "
        "(for example another order id or amount)"
    ),
    "invalid_function": "the tool does not fit the request, or is not a tool for this task",
    "sequence_error": (
        "the call came in the wrong order relative to other calls (for example acting "
        "before a required lookup, or confirming before the action succeeded)"
    ),
    "ignored_result": (
        "the agent disregarded what this call returned (for example acted against it, or "
        "told the user something it contradicts)"
    ),
    "repeated_failure": "the call repeats, unchanged, a call that had already failed",
    "error_handling": (
        "the call failed and the agent did not handle it (for example it reported success "
        "or did not tell the user)"
    ),
}

TOOLS_ERROR_EXAMPLE = (
    '{"calls": [{"call": <call number>, "errors": [{"category": '
    '"<one of the categories>", "evidence": "<quote from the transcript>"}]}]}'
)
TOOLS_ERROR_TEMPLATE = """\
Review each tool call in the transcript below and flag its errors, using only these \
categories:
{categories}
A call with none of these problems gets an empty list of errors. Give short evidence \
quoting the transcript for every error.

Tool calls to review ({count}):
{calls}

{legend}

Transcript:
{conversation}

Reply with JSON only, exactly one entry per tool call, in order, in this shape \
("errors" is [] for a call without problems):
""" + _braces(TOOLS_ERROR_EXAMPLE)

TOOLS_ERROR_SCHEMA = _object(
    {
        "calls": {
            "type": "array",
            "items": _object(
                {
                    "call": {"type": "integer"},
                    "errors": {
                        "type": "array",
                        "items": _object(
                            {
                                "category": {"type": "string", "enum": list(TOOL_ERROR_CATEGORIES)},
                                "evidence": _TEXT,
                            },
                            "tool_error",
                        ),
                    },
                },
                "call_review",
            ),
        }
    },
    "tools_error",
)

# ------------------------------------------------------------------ task success

TASK_SUCCESS_EXAMPLE = (
    '{"evidence": "<what the tool results show>", '
    '"accomplished": <true or false>, "reason": "<why, citing the transcript>"}'
)
TASK_SUCCESS_TEMPLATE = """\
Decide whether the user's task was accomplished by the end of the conversation below. \
Read the tool results: if a tool failed, or returned something showing the task was \
not done, the task is not accomplished, even when the agent said it was. A task the \
agent declined, or only promised to do, is not accomplished.{reference_clause}

{legend}

Transcript:
{conversation}

Reply with JSON only, in this shape:
""" + _braces(TASK_SUCCESS_EXAMPLE)

TASK_SUCCESS_REFERENCE_CLAUSE = (
    "\n\nExpected outcome, written by a person who knows the task: {reference}"
)

TASK_SUCCESS_SCHEMA = _object(
    {"evidence": _TEXT, "accomplished": _FLAG, "reason": _TEXT}, "task_success"
)

EXAMPLES: tuple[str, ...] = (
    TOPIC_EXTRACT_EXAMPLE,
    TOPIC_VERDICT_EXAMPLE,
    GOAL_WITH_REFERENCE_EXAMPLE,
    GOAL_EXTRACT_EXAMPLE,
    GOAL_COMPARE_EXAMPLE,
    TOOLS_ERROR_EXAMPLE,
    TASK_SUCCESS_EXAMPLE,
)

_PLACEHOLDER = re.compile(r"<[^<>\n]{1,80}>")


def example_in(
    messages: Sequence[Mapping[str, Any]], examples: Sequence[str] = EXAMPLES
) -> str | None:
    """The reply example shown in ``messages`` (one of ``examples``), or None."""
    for message in reversed(messages):
        content = message.get("content")
        if isinstance(content, str):
            for example in examples:
                if example in content:
                    return example
    return None


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def _plain(text: str) -> str:
    return " ".join(text.lower().strip(" .<>").split())


def repeats_example(reply: str, example: str) -> bool:
    """True when ``reply`` copies ``example`` instead of answering.

    That is: it contains one of the example's ``<placeholders>`` (``<true or
    false>``), or one of its strings is a placeholder's words, or a
    comma-separated part of them (``"why, citing the transcript"``,
    ``"Citing the transcript."``, ``"why"``).
    """
    placeholders = _PLACEHOLDER.findall(example)
    lowered = reply.lower()
    if any(p.lower() in lowered for p in placeholders):
        return True
    # The whole placeholder or any comma-separated part of it: "Citing the transcript."
    # copies "<why, citing the transcript>" as surely as the whole phrase does.
    words = {_plain(part) for p in placeholders for part in [p, *p.strip("<>").split(",")]}
    words.discard("")
    from tooleval.llm.reply import extract_json_object

    try:
        parsed = extract_json_object(reply)
    except (ValueError, RecursionError):
        parsed = None
    return any(_plain(text) in words for text in _strings(parsed) if text.strip())
