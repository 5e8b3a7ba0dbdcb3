"""The ``user`` key of an ``openai`` connector: a simulated user (docs/episodes.md).

::

    user:
      type: openai                # or local (the bundled model)
      model: gpt-4o-mini
      base_url: http://127.0.0.1:8080/v1
      api_key_env: OPENAI_API_KEY
      seed: 7                     # stored with the run (the connector's description)
      temperature: 0
      persona: "a hurried traveller"   # rows' persona column wins
      instruction: instruction    # the column holding the task instruction (else input)
      persona_column: persona
      max_turns: 10               # user messages per episode
      stop: "###STOP###"

Every key but the simulator's own goes to the chat model's client
(:func:`~tooleval.llm.judge_from_config`), whose replies are not cached
unless ``cache`` says so.

>>> user_from_config({"type": "openai", "model": "m", "base_url": "http://127.0.0.1:9/v1",
...                   "seed": 7, "max_turns": 3}).describe()["max_turns"]
3
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tooleval.errors import ConfigError
from tooleval.llm import judge_from_config
from tooleval.simulators import STOP, UserSimulator

__all__ = ["user_broke", "user_from_config"]

_OWN = ("persona", "instruction", "persona_column", "max_turns", "stop")


def user_from_config(config: Any, *, field: str = "connector.user") -> UserSimulator:
    """A :class:`~tooleval.simulators.UserSimulator` from a ``user`` mapping."""
    if not isinstance(config, Mapping):
        raise ConfigError(
            f"expected a mapping with the simulator's model, got {type(config).__name__}",
            field=field,
        )
    own = {k: config[k] for k in _OWN if k in config}
    model = {k: v for k, v in config.items() if k not in _OWN}
    model.setdefault("cache", False)
    for key in ("persona", "instruction", "persona_column"):
        if key in own and not isinstance(own[key], str):
            raise ConfigError(f"expected a text, got {own[key]!r}", field=f"{field}.{key}")
    try:  # the simulator's own options first, then its model's
        simulator = UserSimulator(
            judge=None,
            persona=own.get("persona"),
            instruction_column=own.get("instruction", "instruction"),
            persona_column=own.get("persona_column", "persona"),
            stop=own.get("stop", STOP),
            max_turns=own.get("max_turns", 10),
        )
    except ConfigError as exc:  # its field is "user.<key>": name it under this connector
        key = str(exc.context.get("field", "")).rpartition(".")[2]
        raise ConfigError(exc.message, field=f"{field}.{key}") from None
    simulator.judge = judge_from_config(model, field=field)
    return simulator


def user_broke(metadata: Mapping[str, Any]) -> str | None:
    """Why a row's agent is not to be judged: its simulated user broke the episode (else None).

    The audit (``metadata.simulator.audit``) is the row's own verdict; a failed
    one makes every metric of the row unscored with this reason, so the row
    never counts for or against the agent's pass rate.

    >>> print(user_broke({"simulator": {"audit": {"passed": False, "faults": ["leaked"],
    ...                                           "reasons": ["user message 1 repeats it"]}}}))
    the simulated user broke the episode, so it is not the agent's to pass or fail (simulator audit: leaked): user message 1 repeats it
    >>> user_broke({"simulator": {"audit": {"passed": True}}}) is None
    True
    """
    simulator = metadata.get("simulator")
    audit = simulator.get("audit") if isinstance(simulator, Mapping) else None
    if not isinstance(audit, Mapping) or audit.get("passed") is not False:
        return None
    faults = ", ".join(str(f) for f in audit.get("faults") or ()) or "failed"
    reasons = "; ".join(str(r) for r in audit.get("reasons") or ())
    return (
        "the simulated user broke the episode, so it is not the agent's to pass or fail "
        f"(simulator audit: {faults})" + (f": {reasons}" if reasons else "")
    )
