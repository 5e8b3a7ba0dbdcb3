"""Scripted agents for tau-bench tasks: the oracle (the gold actions) and its mutants.

Every agent is a list of tool calls played one per model reply (as tau-bench's
tool-calling agent executes them), then a closing reply that names the task's
outputs. A mutant changes the gold actions in one way:

- ``drop_write``: the first write left out;
- ``wrong_argument``: one argument of the first write changed;
- ``extra_write``: the last write made a second time;
- ``noop_write``: a write on a record that does not exist added (it changes nothing);
- ``reorder_writes``: the first two writes swapped.

A mutant that does not apply to a task (no write, one write) is not made.
:func:`scripted_reply` answers an OpenAI chat request for any of them, told by the
row tag ``[row-id]`` that opens the user message, so concurrent episodes never
take each other's steps.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from tests.openai_server import completion

READS = ("get_", "search_", "find_", "list_", "calculate", "think", "transfer_to_human_agents")
NOOP_WRITES = {
    "airline": ("cancel_reservation", {"reservation_id": "ZZZZZZ"}),
    "retail": ("cancel_pending_order", {"order_id": "#W0000000", "reason": "no longer needed"}),
}
MUTATIONS = ("drop_write", "wrong_argument", "extra_write", "noop_write", "reorder_writes")

Action = tuple[str, dict[str, Any]]


def is_write(name: str) -> bool:
    return not name.startswith(READS)


def _changed(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return value + "_x"
    if isinstance(value, list) and value:
        return value[:-1]
    return value


def _wrong_argument(kwargs: dict[str, Any]) -> dict[str, Any]:
    """The first argument (in key order) changed: text gets a suffix, a number +1, a list its last item off."""
    changed = copy.deepcopy(kwargs)
    for key in sorted(changed):
        new = _changed(changed[key])
        if new != changed[key]:
            changed[key] = new
            return changed
    return changed


def variants(domain: str, gold: list[Action]) -> dict[str, list[Action]]:
    """The oracle and every mutant that applies to this task."""
    writes = [i for i, (name, _) in enumerate(gold) if is_write(name)]
    out: dict[str, list[Action]] = {"oracle": list(gold)}
    if writes:
        first, last = writes[0], writes[-1]
        out["drop_write"] = [a for i, a in enumerate(gold) if i != first]
        wrong = list(gold)
        wrong[first] = (gold[first][0], _wrong_argument(gold[first][1]))
        out["wrong_argument"] = wrong
        out["extra_write"] = [*gold[: last + 1], gold[last], *gold[last + 1 :]]
    out["noop_write"] = [*gold, NOOP_WRITES[domain]]
    if len(writes) >= 2:
        swapped = list(gold)
        a, b = writes[0], writes[1]
        swapped[a], swapped[b] = gold[b], gold[a]
        out["reorder_writes"] = swapped
    return out


def closing_reply(outputs: list[str]) -> str:
    return "Done." + "".join(f" {o}" for o in outputs)


def scripted_reply(scripts: dict[str, tuple[list[Action], str]]) -> Callable[..., dict[str, Any]]:
    """An OpenAIServer reply: the row's next action, or its closing reply once all are played."""

    def reply(body: dict[str, Any], number: int) -> dict[str, Any]:
        messages = body["messages"]
        user = next(m["content"] for m in messages if m["role"] == "user")
        tag = user[1 : user.index("]")]
        actions, closing = scripts[tag]
        played = sum(1 for m in messages if m["role"] == "assistant")
        if played < len(actions):
            name, kwargs = actions[played]
            call = {
                "id": f"call_{played}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(kwargs)},
            }
            message = {"role": "assistant", "content": None, "tool_calls": [call]}
            return completion(message, finish="tool_calls", number=number)
        return completion({"role": "assistant", "content": closing}, number=number)

    return reply
