"""An LLM user simulator: a persona and a task instruction per row, played by any chat model.

The simulator is a :class:`~tooleval.llm.Judge` (an OpenAI-compatible
endpoint or the local model) told to be the user: its system prompt holds
the row's persona and instruction, the agent's replies are its ``user``
messages and its own lines are ``assistant`` messages. It ends the episode by
saying the stop signal (``###STOP###``, as tau-bench's users do).
:meth:`UserSimulator.audit` runs :func:`~tooleval.simulators.audit.audit_user`
on what it said.

Per row, the instruction is the ``instruction`` column (``metadata``), else
the row's input; the persona the ``persona`` column, else the simulator's
own ``persona`` option.

>>> sim = UserSimulator(judge=None, persona="a hurried traveller")
>>> sim.system_prompt(Sample(input="Cancel reservation ABC123."))[:40]
'You are a customer talking to a customer'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tooleval.errors import ConfigError
from tooleval.model import Sample
from tooleval.simulators.audit import UserAudit, audit_user

__all__ = ["PROMPT", "STOP", "UserSimulator"]

STOP = "###STOP###"
PROMPT = """You are a customer talking to a customer service agent. You are not the agent: \
never offer help, never act as an assistant.

Who you are: {persona}

What you want (your private instruction; say it in your own words, a piece at a time, \
and never copy it out): {instruction}

Reply with one short message as the customer. When everything you wanted is done, or \
cannot be done, reply with {stop} alone."""


class UserSimulator:
    """Plays the user of one row; see the module docstring."""

    def __init__(
        self,
        *,
        judge: Any,
        persona: str | None = None,
        instruction_column: str = "instruction",
        persona_column: str = "persona",
        stop: str = STOP,
        max_turns: int = 10,
    ) -> None:
        if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
            raise ConfigError(
                f"expected a whole number >= 1, got {max_turns!r}", field="user.max_turns"
            )
        if not isinstance(stop, str) or not stop:
            raise ConfigError(f"expected a stop text, got {stop!r}", field="user.stop")
        self.judge = judge
        self.persona = persona
        self.instruction_column = instruction_column
        self.persona_column = persona_column
        self.stop = stop
        self.max_turns = max_turns

    def describe(self) -> dict[str, Any]:
        describe = getattr(self.judge, "describe", None)
        return {
            "model": describe() if callable(describe) else None,
            "persona": self.persona,
            "instruction_column": self.instruction_column,
            "persona_column": self.persona_column,
            "stop": self.stop,
            "max_turns": self.max_turns,
        }

    def instruction(self, sample: Sample) -> str:
        found = sample.metadata.get(self.instruction_column)
        text = found if isinstance(found, str) and found.strip() else sample.input
        if not text:
            raise ConfigError(
                f"the row has no instruction for the simulated user (column "
                f"{self.instruction_column}, or input)",
                field=self.instruction_column,
            )
        return str(text)

    def system_prompt(self, sample: Sample) -> str:
        persona = sample.metadata.get(self.persona_column)
        persona = persona if isinstance(persona, str) and persona else self.persona
        return PROMPT.format(
            persona=persona or "an ordinary customer",
            instruction=self.instruction(sample),
            stop=self.stop,
        )

    def messages(
        self, sample: Sample, conversation: Sequence[Mapping[str, Any]]
    ) -> list[dict[str, str]]:
        """The simulator's view: the agent's texts as ``user``, its own as ``assistant``."""
        out = [{"role": "system", "content": self.system_prompt(sample)}]
        for message in conversation:
            text = message.get("content")
            if not isinstance(text, str) or not text:
                continue  # tool traffic is the agent's business, not the user's
            if message.get("role") == "user":
                out.append({"role": "assistant", "content": text})
            elif message.get("role") == "assistant":
                out.append({"role": "user", "content": text})
        if len(out) == 1:
            out.append({"role": "user", "content": "Hello, how can I help you today?"})
        return out

    async def anext(self, sample: Sample, conversation: Sequence[Mapping[str, Any]]) -> str:
        """The user's next message (it may hold the stop signal)."""
        reply = await self.judge.acomplete(self.messages(sample, conversation))
        return str(reply.text or "").strip()

    def stopped(self, text: str) -> bool:
        return self.stop in text

    def audit(
        self,
        sample: Sample,
        conversation: Sequence[Mapping[str, Any]],
        *,
        stopped: bool,
        error: str | None = None,
    ) -> UserAudit:
        users = [str(m.get("content") or "") for m in conversation if m.get("role") == "user"]
        agents = [
            str(m.get("content") or "")
            for m in conversation
            if m.get("role") == "assistant" and m.get("content")
        ]
        try:
            instruction = self.instruction(sample)
        except ConfigError:
            instruction = ""
        return audit_user(instruction, users, agents, stopped=stopped, stop=self.stop, error=error)
