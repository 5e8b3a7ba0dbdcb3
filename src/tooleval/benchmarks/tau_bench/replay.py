"""tau-bench's reward, reproduced by replaying calls on its own tools and data.

As tau-bench's ``Env.calculate_reward`` does: the agent's actions run on
fresh data (one action per assistant message: its first tool call, or a
reply when it has none, as the tool-calling agent executes them), the task's
gold actions run on another fresh copy (terminating tools such as
``transfer_to_human_agents`` not replayed), and ``r_actions`` is whether the
two databases hash the same (tau-bench's ``to_hashable``: object keys
sorted, lists in order, values type-strict). A task with ``outputs`` also
needs each output, lower-cased, in some reply with commas removed. An
episode that never ended (no ``###STOP###`` from the user, no terminating
tool) has reward 0, as tau-bench records it.

Equal hashes are decided on the canonical JSON of the data (sorted keys),
which tells the same values and types apart as tau-bench's hash text does,
at a fraction of its cost; and only on the records either replay touched:
both run on a :class:`~tooleval.benchmarks.tau_bench.database.Database`,
which copies a record from the domain's data (parsed once) when a tool first
reads it, so the records neither touched are the same originals.
tau-bench's own hash of the gold state (``gt_data_hash``, what its results
store) is computed when asked (``tau_hash=True``).

The result names the environment version (a hash of the tool and data
files) it was replayed on.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tooleval.benchmarks.tau_bench.database import (
    Database,
    Footprint,
    canonical,
    consistent_hash,
)
from tooleval.benchmarks.tau_bench.replay_source import TauDomain
from tooleval.environments.diff import state_diff
from tooleval.model import AssistantMessage, Diagnosis, Result, Sample, UserMessage
from tooleval.user_deadline import CallTimeout, deadline

__all__ = [
    "RESPOND",
    "Action",
    "RewardReplay",
    "actions_from_messages",
    "actions_from_sample",
    "consistent_hash",
    "replay_reward",
    "reward_result",
]

RESPOND = "respond"
STOP = "###STOP###"
METRIC = "tau_bench_reward"
_CALL_SECONDS = 10.0
# Database differences kept per failing row (the rest are not listed).
_DIFF_LIMIT = 100


@dataclass(frozen=True, slots=True)
class Action:
    """One action as tau-bench's env steps it: a tool name and its arguments, or a reply."""

    name: str
    kwargs: Mapping[str, Any]
    error: str | None = None  # arguments that could not be read: not executed


def _fingerprint(data: Any) -> str:
    return "sha256:" + hashlib.sha256(canonical(data)).hexdigest()


def actions_from_messages(messages: Sequence[Mapping[str, Any]]) -> tuple[list[Action], bool]:
    """The actions tau-bench's tool-calling agent executed, and whether the episode ended.

    >>> acts, done = actions_from_messages([
    ...     {"role": "assistant", "content": None, "tool_calls": [
    ...         {"function": {"name": "a", "arguments": "{}"}},
    ...         {"function": {"name": "b", "arguments": "{}"}}]},
    ...     {"role": "assistant", "content": "bye"},
    ...     {"role": "user", "content": "###STOP###"}])
    >>> [a.name for a in acts], done
    (['a', 'respond'], True)
    """
    actions: list[Action] = []
    done = False
    for message in messages:
        if not isinstance(message, Mapping):
            continue
        role = message.get("role")
        if role == "user" and STOP in str(message.get("content") or "") and actions:
            done = True
        if role != "assistant":
            continue
        calls = message.get("tool_calls") or []
        first = calls[0] if isinstance(calls, list) and calls else None
        function = first.get("function") if isinstance(first, Mapping) else None
        if isinstance(function, Mapping):
            actions.append(_tool_action(function))
        else:
            actions.append(Action(RESPOND, {"content": str(message.get("content") or "")}))
    return actions, done


def actions_from_sample(sample: Sample) -> tuple[list[Action], bool]:
    """:func:`actions_from_messages` for a Sample read from a tau-bench run (its messages).

    The same rule on tooleval's messages: each assistant message's first call
    (arguments that could not be read stay an error, never executed), else its
    text as a reply; the episode ended when a user message after an action says
    ``###STOP###``.

    >>> from tooleval.model import ToolCall
    >>> s = Sample(messages=[AssistantMessage("", (ToolCall.parse("a", "{x"),)),
    ...                      UserMessage("###STOP###")])
    >>> acts, done = actions_from_sample(s)
    >>> acts[0].name, acts[0].error is not None, done
    ('a', True, True)
    """
    actions: list[Action] = []
    done = False
    for message in sample.messages:
        if isinstance(message, UserMessage) and STOP in message.content and actions:
            done = True
        if not isinstance(message, AssistantMessage):
            continue
        if message.tool_calls:
            call = message.tool_calls[0]
            if call.parse_error is not None:
                actions.append(Action(call.name, {}, call.parse_error))
            else:
                actions.append(Action(call.name, dict(call.args or {})))
        else:
            actions.append(Action(RESPOND, {"content": message.content}))
    return actions, done


def _tool_action(function: Mapping[str, Any]) -> Action:
    name = str(function.get("name"))
    arguments = function.get("arguments")
    if isinstance(arguments, Mapping):
        return Action(name, dict(arguments))
    try:
        value = json.loads(arguments) if isinstance(arguments, str) else None
    except (ValueError, RecursionError) as exc:
        return Action(name, {}, f"arguments are not JSON: {exc}")
    if not isinstance(value, dict):
        return Action(name, {}, f"arguments must be a JSON object, got {type(value).__name__}")
    return Action(name, value)


@dataclass(slots=True)
class RewardReplay:
    """What the replay found: tau-bench's reward and its parts."""

    reward: float
    r_actions: bool
    done: bool
    outputs: dict[str, bool] = field(default_factory=dict)
    observations: list[str] = field(default_factory=list)
    gt_data_hash: str | None = None
    version: str = ""
    #: When the databases differ: each path with the gold and the agent's value (the viewer's
    #: state diff, as ``state_match`` keeps it), at most ``_DIFF_LIMIT`` of them.
    differences: list[dict[str, Any]] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "reward": self.reward,
            "r_actions": self.r_actions,
            "done": self.done,
            "environment_version": self.version,
        }
        if self.outputs:
            out["outputs"] = self.outputs
        if self.gt_data_hash is not None:
            out["gt_data_hash"] = self.gt_data_hash
        return out


def _step(domain: TauDomain, data: dict[str, Any], action: Action) -> str:
    if action.name == RESPOND:
        return ""
    tool = domain.tools.get(action.name)
    if tool is None:
        return f"Unknown action {action.name}"
    if action.error is not None:
        return f"Error: {action.error}"
    try:
        with deadline(_CALL_SECONDS):
            return str(tool(data=data, **action.kwargs))
    except CallTimeout:
        return f"Error: {action.name} ran past {_CALL_SECONDS} s"
    except Exception as exc:  # tau-bench answers every raised error as text
        return f"Error: {exc}"


_State = Footprint | str  # a replay's end state, as compared: touched records, or a whole hash


def _run(
    domain: TauDomain, actions: Sequence[Action]
) -> tuple[list[str], Database | dict[str, Any]]:
    """Each action's observation, and the data they left."""
    if domain.shared is not None:
        database = Database(domain.shared)
        observations = [_step(domain, database.data, action) for action in actions]
        if database.intact():
            return observations, database
        # a tool changed an original it reached by iterating a table: renew them, run on a copy
        domain.shared.renew()
    data = domain.fresh_data()
    return [_step(domain, data, action) for action in actions], data


def _state(left: Database | dict[str, Any]) -> _State:
    if isinstance(left, Database):
        footprint = left.footprint()
        return footprint if footprint is not None else _fingerprint(left.plain())
    return _fingerprint(left)


def _plain(left: Database | dict[str, Any]) -> dict[str, Any]:
    return left.plain() if isinstance(left, Database) else left


_gold_cache: dict[tuple[str, str, bool], tuple[_State, str | None]] = {}
_gold_lock = threading.Lock()


def _gold_run(domain: TauDomain, gold: Sequence[Action]) -> Database | dict[str, Any]:
    return _run(domain, [a for a in gold if a.name not in domain.terminate_tools])[1]


def _gold(domain: TauDomain, gold: Sequence[Action], tau_hash: bool) -> tuple[_State, str | None]:
    key = (domain.version, json.dumps([[a.name, a.kwargs] for a in gold], sort_keys=True), tau_hash)
    with _gold_lock:
        if key in _gold_cache:
            return _gold_cache[key]
    left = _gold_run(domain, gold)
    found = (_state(left), consistent_hash(_plain(left)) if tau_hash else None)
    with _gold_lock:
        if len(_gold_cache) > 4096:
            _gold_cache.clear()
        _gold_cache[key] = found
    return found


def _same(
    domain: TauDomain,
    left: Database | dict[str, Any],
    state: _State,
    gold: Sequence[Action],
    cached: _State,
) -> bool:
    if isinstance(state, Footprint) and isinstance(cached, Footprint):
        return state.same(cached)
    if isinstance(state, str) and isinstance(cached, str):
        return state == cached
    # one side changed the top level of the data itself: both hashed whole
    whole = state if isinstance(state, str) else _fingerprint(_plain(left))
    gold_whole = (
        cached if isinstance(cached, str) else _fingerprint(_plain(_gold_run(domain, gold)))
    )
    return whole == gold_whole


def _records(data: Mapping[str, Any], touched: set[tuple[str, Any]]) -> dict[str, Any]:
    """The touched records of ``data``, in the database's own order (never a set's order).

    A set's order changes with the process's hash seed; the differences a row
    lists (and which are kept under the limit) must not.
    """
    out: dict[str, Any] = {}
    for table, rows in data.items():
        if not isinstance(rows, Mapping):
            continue
        for key in rows:
            if (table, key) in touched:
                out.setdefault(table, {})[key] = rows[key]
    return out


def _differences(
    domain: TauDomain, left: Database | dict[str, Any], gold: Sequence[Action]
) -> list[dict[str, Any]]:
    """Each path where the agent's database differs from the gold actions' (records, fields).

    When both replays ran over the shared tables, only the records either
    touched are compared (the rest are the same originals on both sides):
    milliseconds instead of a walk over the whole database.
    """
    gold_left = _gold_run(domain, gold)
    expected, actual = _plain(gold_left), _plain(left)
    ours, theirs = _state(left), _state(gold_left)
    if isinstance(ours, Footprint) and isinstance(theirs, Footprint):
        touched = ours.records.keys() | theirs.records.keys()
        expected, actual = _records(expected, touched), _records(actual, touched)
    return [d.to_dict() for d in state_diff(expected, actual, limit=_DIFF_LIMIT)]


def replay_reward(
    domain: TauDomain,
    gold: Sequence[Action],
    outputs: Sequence[str],
    actions: Sequence[Action],
    *,
    done: bool = True,
    tau_hash: bool = False,
) -> RewardReplay:
    """tau-bench's reward for ``actions`` against the task's ``gold`` actions and ``outputs``."""
    ended = next((i for i, a in enumerate(actions) if a.name in domain.terminate_tools), None)
    if ended is not None:  # the episode ends at a terminating tool
        actions, done = actions[: ended + 1], True
    observations, left = _run(domain, actions)
    gold_state, gt_hash = _gold(domain, gold, tau_hash)
    r_actions = _same(domain, left, _state(left), gold, gold_state)
    replies = [
        str(a.kwargs.get("content", "")).lower().replace(",", "")
        for a in (*actions, *gold)
        if a.name == RESPOND
    ]
    found = {output: any(output.lower() in reply for reply in replies) for output in outputs}
    reward = 1.0 if done and r_actions and all(found.values()) else 0.0
    # Only a failing row pays for a second gold run and the diff.
    differences = None if r_actions else _differences(domain, left, gold)
    return RewardReplay(
        reward,
        r_actions,
        done,
        found,
        observations,
        gt_hash,
        domain.version,
        differences,
    )


def reward_result(replayed: RewardReplay) -> Result:
    """The replay as a tooleval Result (score = tau-bench's reward)."""
    if not replayed.done:
        reason = "the episode never ended (no ###STOP###, no terminating tool): reward 0"
    elif not replayed.r_actions:
        reason = "the database after the agent's calls differs from the gold actions' (r_actions 0)"
    elif not all(replayed.outputs.values()):
        missing = [o for o, ok in replayed.outputs.items() if not ok]
        reason = f"outputs not in any reply: {', '.join(missing)}"
    else:
        reason = "same database as the gold actions" + (
            " and every output in a reply" if replayed.outputs else ""
        )
    details: dict[str, Any] = {
        "tau_bench": replayed.to_dict(),
        "observations": replayed.observations,
    }
    if replayed.differences is not None:
        details["differences"] = replayed.differences
    return Result.scored(
        METRIC,
        replayed.reward,
        reason=f"{reason} (tau-bench environment {replayed.version})",
        params={"environment_version": replayed.version},
        diagnosis=Diagnosis(details=details),
    )
