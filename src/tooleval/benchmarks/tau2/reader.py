"""tau2-bench results files as tooleval Samples.

A results file holds ``tasks`` (with ``evaluation_criteria.actions``:
``{"name", "arguments", "compare_args", ...}``) and ``simulations`` (with
``messages``; calls carry dict arguments and a ``requestor``). Each action's
``compare_args`` goes to ``metadata["tau2"]["compare_args"]`` for the
``tau2_actions`` metric, and tau2's stored ``action_match`` verdicts to
``metadata["tau2"]["action_checks"]``.

>>> data = {"tasks": [{"id": "t1", "evaluation_criteria": {"actions": [{"name": "f"}]}}],
...         "simulations": [{"id": "s1", "task_id": "t1", "messages": []}]}
>>> [s.id for s in samples_from_tau2_results(data)]
['s1']
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from tooleval.benchmarks._files import read_document
from tooleval.benchmarks.base import read_each, record_id
from tooleval.benchmarks.tau_bench.messages import call as _call
from tooleval.benchmarks.tau_bench.messages import messages as _messages
from tooleval.benchmarks.tau_bench.messages import require as _require
from tooleval.errors import DatasetError, FormatError
from tooleval.model import ExpectedTools, Sample, ToolCall

__all__ = [
    "TAU2_ACTION_FIELDS",
    "TAU2_CRITERIA",
    "load_tau2_results",
    "sample_from_tau2_simulation",
    "samples_from_tau2_results",
]


def sample_from_tau2_simulation(
    simulation: Mapping[str, Any], task: Mapping[str, Any], *, index: int | None = None
) -> Sample:
    """One tau2 simulation against its task's ``evaluation_criteria.actions``.

    ``tools_called`` holds every call in the conversation, the user's too
    (telecom lets the simulated user act), because tau2 checks actions
    against all of them; each call's requestor is in
    ``metadata["tau2"]["requestors"]``.
    """
    where = f"simulations[{index}]" if index is not None else "simulation"
    raw_messages = _require(simulation, "messages", list, where)
    messages = _messages(raw_messages, f"{where}.messages", openai_calls=False)
    calls: list[ToolCall] = []
    requestors: list[str] = []
    for i, msg in enumerate(raw_messages):
        if msg.get("role") in ("assistant", "user"):
            for j, raw in enumerate(msg.get("tool_calls") or []):
                calls.append(_call(raw, f"{where}.messages[{i}].tool_calls[{j}]", openai=False))
                requestors.append(raw.get("requestor") or msg["role"])
    criteria = task.get("evaluation_criteria") or {}
    if not isinstance(criteria, Mapping):
        raise FormatError(
            "expected an object of evaluation criteria",
            field=f"tasks[{task.get('id')}].evaluation_criteria",
        )
    where_task = f"tasks[{task.get('id')}].evaluation_criteria"
    expected, compare_args = _tau2_actions(criteria.get("actions") or [], f"{where_task}.actions")
    outcomes, odd_outcomes = _tau2_outcomes(criteria.get("acceptable_outcomes"), where_task)
    unknown = _unknown_keys(criteria, "", TAU2_CRITERIA | {"acceptable_outcomes"})
    unknown += _unknown_action_keys(criteria.get("actions"), "actions") + odd_outcomes
    for k, outcome in enumerate(outcomes and criteria["acceptable_outcomes"] or []):
        listed = outcome.get("actions") if isinstance(outcome, Mapping) else outcome
        unknown += _unknown_action_keys(listed, f"acceptable_outcomes[{k}].actions")
    reward_info = simulation.get("reward_info") or {}
    stored = reward_info.get("action_checks")
    return Sample(
        messages=messages,
        tools_called=calls,
        expected_tools=ExpectedTools(tuple(expected), before=()),
        id=str(simulation.get("id") or f"{simulation.get('task_id')}-{simulation.get('trial')}"),
        metadata={
            "tau2": {
                "task_id": simulation.get("task_id"),
                "trial": simulation.get("trial"),
                "reward": reward_info.get("reward"),
                "compare_args": compare_args,
                "requestors": requestors,
                "termination_reason": simulation.get("termination_reason"),
                "acceptable_outcomes": outcomes,
                "unknown_criteria": unknown,
                "action_checks": None
                if stored is None
                else [bool(c.get("action_match")) for c in stored],
            }
        },
    )


# The fields of tau2's EvaluationCriteria model (tau2-bench src/tau2/data_model/tasks.py).
TAU2_CRITERIA = frozenset(
    {"actions", "env_assertions", "communicate_info", "nl_assertions", "reward_basis"}
)


# The fields of tau2's Action model; any other non-empty key is reported, never ignored.
TAU2_ACTION_FIELDS = frozenset(
    {"action_id", "requestor", "name", "arguments", "info", "compare_args"}
)


def _unknown_action_keys(actions: Any, where: str) -> list[str]:
    if not isinstance(actions, list):
        return []
    return [
        f"{where}[{i}].{key}"
        for i, action in enumerate(actions)
        if isinstance(action, Mapping)
        for key, value in action.items()
        if key not in TAU2_ACTION_FIELDS and value not in (None, [], {}, "")
    ]


def _tau2_actions(actions: Any, where: str) -> tuple[list[ToolCall], list[list[str] | None]]:
    if not isinstance(actions, list):
        raise FormatError(f"expected a list of actions, got {type(actions).__name__}", field=where)
    expected, compare_args = [], []
    for i, action in enumerate(actions):
        at = f"{where}[{i}]"
        name = _require(action, "name", str, at)
        arguments = action.get("arguments") or {}
        if not isinstance(arguments, Mapping):
            raise FormatError("expected an object of arguments", field=at)
        expected.append(ToolCall(name, dict(arguments), id=action.get("action_id")))
        restriction = action.get("compare_args")
        compare_args.append(None if restriction is None else list(restriction))
    return expected, compare_args


# Keys of an acceptable outcome that only describe it (no gold in them).
_OUTCOME_LABELS = frozenset({"id", "outcome_id", "name", "description", "info", "reward"})
# What an acceptable outcome may hold: the fields of the evaluation criteria (one rule for
# both: what tau2_actions does not check at the top level it does not check here either)
# and its labels.
_OUTCOME_FIELDS = TAU2_CRITERIA | _OUTCOME_LABELS


def _unknown_keys(
    fields: Mapping[str, Any], prefix: str, known: frozenset[str] | set[str]
) -> list[str]:
    """The non-empty keys of ``fields`` outside ``known``, named with ``prefix``, sorted."""
    return sorted(
        f"{prefix}{key}"
        for key, value in fields.items()
        if key not in known and value not in (None, [], {}, "")
    )


def _tau2_outcomes(raw: Any, where: str) -> tuple[list[dict[str, Any]] | None, list[str]]:
    """``acceptable_outcomes``: alternatives, each a list of actions or ``{"actions": [...]}``.

    Returns the alternatives as ``[{"actions": [call dicts], "compare_args":
    [...]}]`` for the ``tau2_actions`` metric (None when the field is absent
    or empty) and the parts this reader does not understand (an outcome of
    another shape, keys other than ``actions`` and labels), which make the
    row unscored instead of being ignored.
    """
    if raw in (None, [], {}):
        return None, []
    if not isinstance(raw, list):
        return None, ["acceptable_outcomes"]
    out, unknown = [], []
    for i, outcome in enumerate(raw):
        label = f"acceptable_outcomes[{i}]"
        if isinstance(outcome, Mapping) and isinstance(outcome.get("actions"), list):
            actions = outcome["actions"]
            unknown += _unknown_keys(outcome, f"{label}.", _OUTCOME_FIELDS)
        elif isinstance(outcome, list):
            actions = outcome
        else:
            unknown.append(label)
            continue
        calls, restrictions = _tau2_actions(actions, f"{where}.{label}.actions")
        out.append({"actions": [c.to_dict() for c in calls], "compare_args": restrictions})
    return out, unknown


def samples_from_tau2_results(data: Mapping[str, Any]) -> list[Sample]:
    """Every simulation of a tau2 results object, paired with its embedded task.

    A simulation that cannot be read (its task absent, a malformed message
    or action) is an unreadable row with the reason; the others score.
    """
    tasks = {
        str(t.get("id")): t
        for t in _require(data, "tasks", list, "results")
        if isinstance(t, Mapping)
    }
    simulations = _require(data, "simulations", list, "results")
    domain = _domain(data)

    def one(index: int, simulation: Any) -> Sample:
        if not isinstance(simulation, Mapping):
            raise FormatError(
                f"expected a simulation object, got {type(simulation).__name__}",
                field=f"simulations[{index}]",
            )
        task_id = str(simulation.get("task_id"))
        if task_id not in tasks:
            raise FormatError(
                f"simulation refers to task {task_id!r}, which the file does not contain",
                field=f"simulations[{index}].task_id",
            )
        sample = sample_from_tau2_simulation(simulation, tasks[task_id], index=index)
        return sample if domain is None else replace(sample, category=domain)

    return read_each(simulations, one, lambda index, s: record_id(s, index, "id"))


def _domain(data: Mapping[str, Any]) -> str | None:
    """The tau2 domain the results file names (``info.environment_info.domain_name``)."""
    info = data.get("info")
    env = info.get("environment_info") if isinstance(info, Mapping) else None
    name = env.get("domain_name") if isinstance(env, Mapping) else None
    return name if isinstance(name, str) and name else None


def load_tau2_results(path: str | Path) -> list[Sample]:
    """Every simulation of a tau2-bench results JSON file (unreadable simulations kept)."""
    data = read_document(path)
    if not isinstance(data, Mapping):
        raise DatasetError(
            f"expected a JSON object with tasks and simulations, got {type(data).__name__}",
            path=str(path),
        )
    try:
        return samples_from_tau2_results(data)
    except FormatError as exc:
        raise exc.with_context(path=str(path)) from None
