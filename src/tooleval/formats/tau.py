"""tau-bench trajectories and tau2-bench simulations as tooleval Samples.

tau-bench (``historical_trajectories/*.json``): a list of runs, each with
``task_id``, ``trial``, ``traj`` (OpenAI chat messages; calls in assistant
``tool_calls`` with JSON-string arguments) and ``info.task.actions`` (the gold
``{"name", "kwargs"}`` actions). The benchmark's own label,
``info.reward_info.info.r_actions``, goes to ``metadata["tau_bench"]``.

tau2-bench (a results file): ``tasks`` (with ``evaluation_criteria.actions``:
``{"name", "arguments", "compare_args", ...}``) and ``simulations`` (with
``messages``; calls carry dict arguments and a ``requestor``). Each action's
``compare_args`` goes to ``metadata["tau2"]["compare_args"]`` for the
``tau2_actions`` metric, and tau2's stored ``action_match`` verdicts to
``metadata["tau2"]["action_checks"]``.

>>> run = {"task_id": 3, "trial": 0, "reward": 1.0,
...        "info": {"task": {"actions": [{"name": "get_user_details", "kwargs": {"user_id": "u1"}}]},
...                 "reward_info": {"info": {"r_actions": 1.0}}},
...        "traj": [{"role": "user", "content": "hi"},
...                 {"role": "assistant", "content": None, "tool_calls": [{"id": "c1",
...                   "function": {"name": "get_user_details", "arguments": '{"user_id": "u1"}'}}]}]}
>>> s = sample_from_tau_bench_run(run)
>>> s.id, [str(c) for c in s.actual_calls()], s.metadata["tau_bench"]["r_actions"]
('3-0', ["get_user_details(user_id='u1')"], 1.0)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tooleval.errors import DatasetError, FormatError
from tooleval.formats.json_limits import NestingTooDeep, loads_text
from tooleval.model import (
    AssistantMessage,
    ExpectedTools,
    Message,
    Sample,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)

__all__ = [
    "load_tau2_results",
    "load_tau_bench",
    "sample_from_tau2_simulation",
    "sample_from_tau_bench_run",
    "samples_from_tau2_results",
    "samples_from_tau_bench_runs",
]


def _require(data: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    if not isinstance(data, Mapping) or key not in data:
        raise FormatError(f"missing {key!r}", field=where)
    value = data[key]
    if not isinstance(value, kind):
        raise FormatError(
            f"expected {kind.__name__} for {key!r}, got {type(value).__name__}", field=where
        )
    return value


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI content parts
        return "".join(p.get("text", "") for p in content if isinstance(p, Mapping))
    return str(content)


def _messages(raw: Sequence[Any], where: str, *, openai_calls: bool) -> list[Message]:
    messages: list[Message] = []
    for index, msg in enumerate(raw):
        at = f"{where}[{index}]"
        if not isinstance(msg, Mapping):
            raise FormatError(f"expected a message object, got {type(msg).__name__}", field=at)
        role = msg.get("role")
        if role == "system":
            messages.append(SystemMessage(_text(msg.get("content"))))
        elif role == "user":
            messages.append(UserMessage(_text(msg.get("content"))))
        elif role == "assistant":
            calls = [
                _call(c, f"{at}.tool_calls[{i}]", openai=openai_calls)
                for i, c in enumerate(msg.get("tool_calls") or [])
            ]
            messages.append(AssistantMessage(_text(msg.get("content")), tuple(calls)))
        elif role == "tool":
            messages.append(
                ToolMessage(
                    msg.get("content"),
                    tool_call_id=msg.get("tool_call_id") or msg.get("id"),
                    name=msg.get("name"),
                    is_error=bool(msg.get("error", False)),
                )
            )
        else:
            raise FormatError(
                f"unknown role {role!r}; expected system, user, assistant or tool", field=at
            )
    return messages


def _call(raw: Any, where: str, *, openai: bool) -> ToolCall:
    if not isinstance(raw, Mapping):
        raise FormatError(f"expected a tool call object, got {type(raw).__name__}", field=where)
    if openai or "function" in raw:
        function = _require(raw, "function", Mapping, where)
        name = _require(function, "name", str, f"{where}.function")
        return ToolCall.parse(name, function.get("arguments"), id=raw.get("id"))
    name = _require(raw, "name", str, where)
    return ToolCall.parse(name, raw.get("arguments"), id=raw.get("id"))


# ---------------------------------------------------------------- tau-bench


def sample_from_tau_bench_run(
    run: Mapping[str, Any], *, index: int | None = None, domain: str | None = None
) -> Sample:
    """One tau-bench run: predicted = assistant ``tool_calls``, expected = ``info.task.actions``.

    Expected actions keep their listed order (``before=None``); a metric that
    ignores order can still read them order-free. ``domain`` (``airline`` or
    ``retail``, default: ``info.env`` / ``info.task.env`` when present) goes
    to ``metadata["tau_bench"]["domain"]`` for the ``tau_bench_actions``
    metric.
    """
    where = f"runs[{index}]" if index is not None else "run"
    info = _require(run, "info", Mapping, where)
    task = _require(info, "task", Mapping, f"{where}.info")
    actions = _require(task, "actions", list, f"{where}.info.task")
    expected = []
    for i, action in enumerate(actions):
        at = f"{where}.info.task.actions[{i}]"
        name = _require(action, "name", str, at)
        kwargs = action.get("kwargs", {})
        if not isinstance(kwargs, Mapping):
            raise FormatError(
                f"expected an object of kwargs, got {type(kwargs).__name__}", field=at
            )
        expected.append(ToolCall(name, dict(kwargs)))
    messages = _messages(_require(run, "traj", list, where), f"{where}.traj", openai_calls=True)
    reward_info = info.get("reward_info") or {}
    labels = reward_info.get("info") or {}
    task_id, trial = run.get("task_id"), run.get("trial")
    return Sample(
        messages=messages,
        expected_tools=ExpectedTools(tuple(expected)),
        id=f"{task_id}-{trial}",
        category=info.get("env") or task.get("env"),
        metadata={
            "tau_bench": {
                "domain": domain or info.get("env") or task.get("env"),
                "task_id": task_id,
                "trial": trial,
                "reward": run.get("reward"),
                "r_actions": labels.get("r_actions"),
                "r_outputs": labels.get("r_outputs"),
                "outputs": task.get("outputs") or [],
            },
            # tau-bench's output check, for `output_contains` with messages="agent"
            **({"output_contains": list(task["outputs"])} if task.get("outputs") else {}),
        },
    )


def load_tau_bench(path: str | Path, *, domain: str | None = None) -> list[Sample]:
    """Every run of a tau-bench trajectories file (a JSON list of runs).

    ``domain`` (``airline`` or ``retail``) is recorded on every sample; by
    default the runs' ``info.env`` when present (the ``tau_bench_actions``
    metric otherwise tells the domain from the tool names).
    """
    data = _load_json(path)
    if not isinstance(data, list):
        raise DatasetError(
            f"expected a JSON list of runs, got {type(data).__name__}", path=str(path)
        )
    try:
        return samples_from_tau_bench_runs(data, domain=domain)
    except FormatError as exc:
        raise exc.with_context(path=str(path)) from None


def samples_from_tau_bench_runs(runs: Sequence[Any], *, domain: str | None = None) -> list[Sample]:
    """Every run of an already parsed tau-bench trajectories list."""
    return [
        sample_from_tau_bench_run(run, index=index, domain=domain) for index, run in enumerate(runs)
    ]


# ---------------------------------------------------------------- tau2-bench


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
    unknown = sorted(
        str(k)
        for k, v in criteria.items()
        if k not in TAU2_CRITERIA and k != "acceptable_outcomes" and v not in (None, [], {}, "")
    )
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
_OUTCOME_LABELS = frozenset({"id", "outcome_id", "name", "description", "info"})


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
            unknown += [
                f"{label}.{key}"
                for key, value in outcome.items()
                if key != "actions"
                and key not in _OUTCOME_LABELS
                and value not in (None, [], {}, "")
            ]
        elif isinstance(outcome, list):
            actions = outcome
        else:
            unknown.append(label)
            continue
        calls, restrictions = _tau2_actions(actions, f"{where}.{label}.actions")
        out.append({"actions": [c.to_dict() for c in calls], "compare_args": restrictions})
    return out, unknown


def samples_from_tau2_results(data: Mapping[str, Any]) -> list[Sample]:
    """Every simulation of a tau2 results object, paired with its embedded task."""
    tasks = {str(t.get("id")): t for t in _require(data, "tasks", list, "results")}
    samples = []
    for index, simulation in enumerate(_require(data, "simulations", list, "results")):
        task_id = str(simulation.get("task_id"))
        if task_id not in tasks:
            raise FormatError(
                f"simulation refers to task {task_id!r}, which the file does not contain",
                field=f"simulations[{index}].task_id",
            )
        samples.append(sample_from_tau2_simulation(simulation, tasks[task_id], index=index))
    return samples


def load_tau2_results(path: str | Path) -> list[Sample]:
    """Every simulation of a tau2-bench results JSON file."""
    data = _load_json(path)
    if not isinstance(data, Mapping):
        raise DatasetError(
            f"expected a JSON object with tasks and simulations, got {type(data).__name__}",
            path=str(path),
        )
    try:
        return samples_from_tau2_results(data)
    except FormatError as exc:
        raise exc.with_context(path=str(path)) from None


def _load_json(path: str | Path) -> Any:
    try:
        with Path(path).open("rb") as handle:
            return loads_text(handle.read())
    except OSError as exc:
        raise DatasetError(f"cannot read file: {exc.strerror}", path=str(path)) from None
    except (ValueError, NestingTooDeep) as exc:
        raise DatasetError(f"invalid JSON: {exc}", path=str(path)) from None
