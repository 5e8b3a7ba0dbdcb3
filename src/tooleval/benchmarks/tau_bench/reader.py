"""tau-bench trajectories as tooleval Samples.

tau-bench (``historical_trajectories/*.json``, or what its ``run.py`` writes):
a list of runs, each with ``task_id``, ``trial``, ``traj`` (OpenAI chat
messages; calls in assistant ``tool_calls`` with JSON-string arguments) and
``info.task.actions`` (the gold ``{"name", "kwargs"}`` actions). The
benchmark's own label, ``info.reward_info.info.r_actions``, goes to
``metadata["tau_bench"]``.

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
from dataclasses import replace
from pathlib import Path
from typing import Any

from tooleval.benchmarks._files import convert_json_list
from tooleval.benchmarks.base import read_each, unreadable
from tooleval.benchmarks.tau_bench.messages import messages as _messages
from tooleval.benchmarks.tau_bench.messages import require as _require
from tooleval.benchmarks.tau_bench.rules import infer_domain
from tooleval.errors import FormatError
from tooleval.formats.json_limits import NestingTooDeep, loads_text
from tooleval.model import ExpectedTools, Sample, ToolCall

__all__ = [
    "load_tau_bench",
    "sample_from_tau_bench_run",
    "samples_from_tau_bench_runs",
    "text_actions",
]


def sample_from_tau_bench_run(
    run: Mapping[str, Any], *, index: int | None = None, domain: str | None = None
) -> Sample:
    """One tau-bench run: predicted = the agent's calls, expected = ``info.task.actions``.

    The agent's calls are the assistant ``tool_calls`` (tool-calling agents)
    or, for tau-bench's ``act`` / ``react`` agents, the ``Action: {"name":
    ..., "arguments": ...}`` in the assistant's text, read as tau-bench reads
    it (text that is not JSON, and the ``respond`` action, are replies; the
    ``API output:`` user turn after a call is its result). A run that
    crashed (``info.error``, as tau-bench's ``run.py`` writes it) is an
    unreadable row whose reason is the error.

    Expected actions keep their listed order (``before=None``); a metric that
    ignores order can still read them order-free. ``domain`` (``airline`` or
    ``retail``, default: ``info.env`` / ``info.task.env`` when present) goes
    to ``metadata["tau_bench"]["domain"]`` for the ``tau_bench_actions``
    metric; the category is that domain, else the one the tool names tell.
    """
    where = f"runs[{index}]" if index is not None else "run"
    info = _require(run, "info", Mapping, where)
    task_id, trial = run.get("task_id"), run.get("trial")
    if "task" not in info and info.get("error") is not None:
        return unreadable(
            f"{task_id}-{trial}", f"tau-bench run failed: {_first_line(info['error'])}"
        )
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
    traj = text_actions(_require(run, "traj", list, where))
    messages = _messages(traj, f"{where}.traj", openai_calls=True)
    reward_info = info.get("reward_info") or {}
    labels = reward_info.get("info") or {}
    env = info.get("env") or task.get("env")
    sample = Sample(
        messages=messages,
        expected_tools=ExpectedTools(tuple(expected)),
        id=f"{task_id}-{trial}",
        category=env,
        metadata={
            "tau_bench": {
                "domain": domain or env,
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
    if env is None:  # the domain the tool names tell, as tau_bench_actions tells it
        names = [c.name for c in (*expected, *sample.actual_calls())]
        sample = replace(sample, category=domain or infer_domain(names))
    return sample


def _first_line(error: Any) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else "(no message)"


_RESPOND = "respond"  # tau-bench's RESPOND_ACTION_NAME: a reply to the user, not a tool call
_API_OUTPUT = "API output: "  # how tau-bench's text agents get a tool's answer back


def text_actions(traj: Sequence[Any]) -> list[Any]:
    r"""``traj`` with the ``Action: {...}`` text of tau-bench's act/react agents as tool calls.

    An assistant message without ``tool_calls`` whose content holds
    ``Action:`` gets the JSON after the last ``Action:`` as one call (id
    ``action-<i>``); the user message ``API output: ...`` right after it
    becomes that call's tool message. Text that is not a JSON object with a
    ``name``, and the ``respond`` action, stay replies (tau-bench reads them so).

    >>> traj = [{"role": "assistant", "content": 'Thought: look\nAction: {"name": "get_user_details", '
    ...          '"arguments": {"user_id": "u1"}}'},
    ...         {"role": "user", "content": "API output: {}"}]
    >>> [m["role"] for m in text_actions(traj)], text_actions(traj)[0]["tool_calls"][0]["id"]
    (['assistant', 'tool'], 'action-0')
    """
    out: list[Any] = []
    pending: str | None = None
    for i, msg in enumerate(traj):
        if not isinstance(msg, Mapping):
            out.append(msg)
            pending = None
            continue
        content = msg.get("content")
        if (
            pending is not None
            and msg.get("role") == "user"
            and isinstance(content, str)
            and content.startswith(_API_OUTPUT)
        ):
            answer = content[len(_API_OUTPUT) :]
            out.append({"role": "tool", "tool_call_id": pending, "content": answer})
            pending = None
            continue
        pending = None
        action = _text_action(msg)
        if action is None:
            out.append(msg)
            continue
        thought, name, arguments = action
        if name == _RESPOND:
            reply = arguments.get("content") if isinstance(arguments, Mapping) else None
            out.append({**msg, "content": reply if isinstance(reply, str) else thought})
            continue
        pending = f"action-{i}"
        call = {"id": pending, "function": {"name": name, "arguments": arguments}}
        out.append({**msg, "content": thought, "tool_calls": [call]})
    return out


def _text_action(msg: Mapping[str, Any]) -> tuple[str, str, Any] | None:
    """``(text before it, name, arguments)`` of an assistant message's ``Action:``, or None."""
    content = msg.get("content")
    if msg.get("role") != "assistant" or msg.get("tool_calls") or not isinstance(content, str):
        return None
    if "Action:" not in content:
        return None
    before, _, after = content.rpartition("Action:")
    try:
        parsed = loads_text(after.strip())
    except (ValueError, NestingTooDeep):
        return None  # tau-bench reads text that is not JSON as a reply
    if not isinstance(parsed, Mapping) or not isinstance(parsed.get("name"), str):
        return None
    arguments = parsed.get("arguments")
    if arguments is None:
        arguments = {}
    return before.strip(), parsed["name"], arguments


def load_tau_bench(path: str | Path, *, domain: str | None = None) -> list[Sample]:
    """Every run of a tau-bench trajectories file (a JSON list of runs).

    ``domain`` (``airline`` or ``retail``) is recorded on every sample; by
    default the runs' ``info.env`` when present (the ``tau_bench_actions``
    metric otherwise tells the domain from the tool names). A run that
    cannot be read is an unreadable row with the reason; only a file that
    is not a JSON list is refused.
    """
    return convert_json_list(
        path, "tau-bench runs", lambda runs: samples_from_tau_bench_runs(runs, domain=domain)
    )


def samples_from_tau_bench_runs(runs: Sequence[Any], *, domain: str | None = None) -> list[Sample]:
    """Every run of an already parsed tau-bench trajectories list (unreadable runs kept)."""
    return read_each(
        runs,
        lambda index, run: sample_from_tau_bench_run(run, index=index, domain=domain),
        _run_id,
    )


def _run_id(index: int, run: Any) -> str:
    if isinstance(run, Mapping) and "task_id" in run:
        return f"{run.get('task_id')}-{run.get('trial')}"
    return str(index)
