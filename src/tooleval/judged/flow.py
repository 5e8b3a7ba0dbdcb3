"""How a judged metric talks to its judge: once, re-ask once, or give up honestly.

A metric is written once as a *flow*: a generator that yields :class:`Ask`
requests (prompt messages, JSON schema, an optional content check) and
receives each checked reply object, then returns its :class:`Result`. Two
drivers run the same flow, :func:`run_flow` (sync) and :func:`arun_flow`
(async), so sync and async metrics share every line of prompt building and
scoring.

The drivers record every exchange (prompt, raw reply, parsed verdict, error,
tokens) in ``diagnosis.details["exchanges"]`` and the row's judge usage in
``diagnosis.details["judge"]``. A reply that still cannot be used after one
re-ask ends the flow with ``Result.unscored(metric, "judge reply unparsable
...")``: never 0, never NaN.

A reply that copies the prompt's example (``{"achieved": <true or false>, ...}``,
see :func:`~tooleval.judged.prompts.repeats_example`) is not a verdict: it is
re-asked like any unusable reply, and a second copy leaves the row unscored
with ``"judge reply repeats the prompt's example after one re-ask ..."``.

Output is sized by the input, never by the judge: a reply, a text value of
the parsed reply, an error and the result's reason are kept up to
:data:`KEPT_CHARS` characters each, the cut stated in the text
(``"... [cut: 30,000,000 chars, kept 4,000]"``), and a re-ask sends back the
cut reply. A judge that answers 30 MB costs a row 4 KB of results, not 90 MB.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from tooleval.errors import JudgeError
from tooleval.judged.prompts import example_in, repeats_example
from tooleval.llm.base import Judge
from tooleval.llm.reply import JudgeReply
from tooleval.model import Diagnosis, Result
from tooleval.model.usage import JudgeUsage

__all__ = [
    "KEPT_CHARS",
    "REPEATS_EXAMPLE",
    "Ask",
    "Flow",
    "arun_flow",
    "reask_messages",
    "require_judge",
    "run_flow",
]

#: Characters of a judge's reply (and of each text it brings) kept in a result.
KEPT_CHARS = 4_000

REASK_TEMPLATE = (
    "Your previous reply could not be used: {error}. "
    "Reply again with only the JSON object described above, with no other text."
)
REPEATS_EXAMPLE = (
    "the reply repeats the prompt's example instead of a verdict; "
    "replace every <placeholder> with your own judgement of this transcript"
)


@dataclass(frozen=True, slots=True)
class Ask:
    """One question for the judge; ``check(parsed)`` returns a problem or None."""

    step: str
    messages: list[dict[str, str]]
    schema: Mapping[str, Any]
    check: Callable[[Any], str | None] | None = None


Flow = Generator[Ask, Any, Result]


def require_judge(judge: Any, metric: str) -> Judge:
    """The judge, or a JudgeError that says how to configure one (never a default)."""
    if judge is None:
        raise JudgeError(
            f"{metric} needs an LLM judge and none is configured: pass judge= "
            "(tooleval.llm.OpenAIJudge(model, base_url=...), or LocalJudge() for plumbing "
            "only: SmolLM2-135M parrots prompt examples), "
            "or add a judge to the plan, e.g. judge: {type: openai, model: gpt-4o-mini, "
            "api_key_env: OPENAI_API_KEY} or judge: {type: local}"
        )
    if not (hasattr(judge, "complete") and hasattr(judge, "acomplete")):
        raise JudgeError(
            f"{metric}: judge must have complete() and acomplete(), got {type(judge).__name__}"
        )
    return judge


def cut(text: str, limit: int = KEPT_CHARS) -> str:
    """``text``, or its first ``limit`` characters with the cut stated.

    >>> cut("yes"), cut("x" * 12_345, 5)
    ('yes', 'xxxxx ... [cut: 12,345 chars, kept 5]')
    """
    if len(text) <= limit:
        return text
    return f"{text[:limit]} ... [cut: {len(text):,} chars, kept {limit:,}]"


def _cut_values(value: Any, depth: int = 0) -> Any:
    """``value`` (a parsed reply) with every text in it cut to :data:`KEPT_CHARS`."""
    if isinstance(value, str):
        return cut(value)
    if depth > 32:  # the reply parser bounds nesting; this bounds the walk whatever it let in
        return value
    if isinstance(value, dict):
        return {cut(str(k)): _cut_values(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_cut_values(v, depth + 1) for v in value]
    return value


def reask_messages(ask: Ask, reply_text: str, error: str) -> list[dict[str, str]]:
    """The original prompt, the unusable reply (cut), and a request to answer again."""
    return [
        *ask.messages,
        {"role": "assistant", "content": cut(reply_text)},
        {"role": "user", "content": REASK_TEMPLATE.format(error=cut(error))},
    ]


class _Unparsable(Exception):
    def __init__(self, step: str, error: str) -> None:
        super().__init__(error)
        self.step = step
        self.error = error


class _Transcript:
    """Everything exchanged with the judge for one row."""

    def __init__(self, judge: Judge) -> None:
        self.model = getattr(judge, "model", "")
        self.exchanges: list[dict[str, Any]] = []
        self.usage = JudgeUsage()
        self.input_cuts: list[str] = []  # what the judge cut from prompts to fit its context

    def outcome(self, ask: Ask, attempt: int, messages: list, reply: JudgeReply) -> Any:
        """Record one reply; return the usable object or raise/return a problem."""
        parsed, error = reply.parsed, reply.parse_error
        example = example_in(ask.messages)
        if example is not None and repeats_example(reply.text, example):
            parsed, error = None, REPEATS_EXAMPLE
        if error is None and parsed is None:
            error = "no JSON object found in the reply"
        if error is None and ask.check is not None:
            error = ask.check(parsed)
        # A re-ask stores only what it added; the first attempt stores the full prompt.
        shown = messages if attempt == 1 else messages[len(ask.messages) :]
        exchange = {
            "step": ask.step,
            "attempt": attempt,
            "messages": shown,
            "reply": cut(reply.text),
            "parsed": _cut_values(parsed),
            "error": cut(error) if isinstance(error, str) else error,
            "cached": reply.cached,
            "tokens_in": reply.tokens_in,
            "tokens_out": reply.tokens_out,
        }
        if reply.input_cut:
            exchange["input_cut"] = reply.input_cut
            if reply.input_cut not in self.input_cuts:
                self.input_cuts.append(reply.input_cut)
        self.exchanges.append(exchange)
        self.usage.record(reply)
        return parsed, error

    def details(self) -> dict[str, Any]:
        out = {"judge": {"model": self.model, **self.usage.to_dict()}, "exchanges": self.exchanges}
        if self.input_cuts:
            out["input_cut"] = list(self.input_cuts)
        return out


def _finish(
    result: Result | None,
    transcript: _Transcript,
    failure: _Unparsable | None,
    metric: str,
    params: Mapping[str, Any],
    threshold: float | None,
) -> Result:
    if failure is not None:
        what = "repeats the prompt's example" if failure.error == REPEATS_EXAMPLE else "unparsable"
        result = Result.unscored(
            metric,
            f"judge reply {what} after one re-ask (step {failure.step}: {failure.error})",
            params=params,
            threshold=threshold,
            diagnosis=Diagnosis(),
        )
    assert result is not None
    # what the metric kept of the replies (a reason, an end state), cut like the replies
    result.diagnosis.details = _cut_values(result.diagnosis.details)
    result.diagnosis.details.update(transcript.details())
    if transcript.input_cuts:  # a verdict on a shortened transcript says so where it is read
        result = replace(result, reason=f"{result.reason} [{'; '.join(transcript.input_cuts)}]")
    if len(result.reason) > KEPT_CHARS:
        result = replace(result, reason=cut(result.reason))
    return result


def run_flow(
    flow: Flow,
    judge: Judge,
    *,
    metric: str,
    params: Mapping[str, Any],
    threshold: float | None = None,
) -> Result:
    """Drive ``flow`` with blocking judge calls."""
    transcript = _Transcript(judge)
    result: Result | None = None
    failure: _Unparsable | None = None
    try:
        ask = next(flow)
        while True:
            ask = flow.send(_ask_sync(judge, ask, transcript))
    except StopIteration as stop:
        result = stop.value
    except _Unparsable as exc:
        failure = exc
    finally:
        flow.close()
    return _finish(result, transcript, failure, metric, params, threshold)


async def arun_flow(
    flow: Flow,
    judge: Judge,
    *,
    metric: str,
    params: Mapping[str, Any],
    threshold: float | None = None,
) -> Result:
    """Drive ``flow`` with awaited judge calls (same flow as :func:`run_flow`)."""
    transcript = _Transcript(judge)
    result: Result | None = None
    failure: _Unparsable | None = None
    try:
        ask = next(flow)
        while True:
            ask = flow.send(await _ask_async(judge, ask, transcript))
    except StopIteration as stop:
        result = stop.value
    except _Unparsable as exc:
        failure = exc
    finally:
        flow.close()
    return _finish(result, transcript, failure, metric, params, threshold)


def _ask_sync(judge: Judge, ask: Ask, transcript: _Transcript) -> Any:
    messages = ask.messages
    for attempt in (1, 2):
        reply = judge.complete(messages, schema=ask.schema)
        parsed, error = transcript.outcome(ask, attempt, messages, reply)
        if error is None:
            return parsed
        messages = reask_messages(ask, reply.text, error)
    raise _Unparsable(ask.step, error)


async def _ask_async(judge: Judge, ask: Ask, transcript: _Transcript) -> Any:
    messages = ask.messages
    for attempt in (1, 2):
        reply = await judge.acomplete(messages, schema=ask.schema)
        parsed, error = transcript.outcome(ask, attempt, messages, reply)
        if error is None:
            return parsed
        messages = reask_messages(ask, reply.text, error)
    raise _Unparsable(ask.step, error)
