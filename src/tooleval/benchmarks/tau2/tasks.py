"""tau2-bench tasks as episode rows, and tau2's COMMUNICATE check.

A tau2 task (``tasks.json`` of a domain) becomes one canonical row for
``tooleval run``: ``input`` and ``instruction`` hold the user scenario (what
tau2's user simulator is told), ``expected_tools`` the gold actions the
assistant must take (``state_match`` replays them for the end state tau2's DB
check compares with), and ``metadata["tau2"]`` the rest of the evaluation
criteria (``reward_basis``, ``communicate_info``, ``nl_assertions``).
:func:`tau2_communicate` is tau2's ``CommunicateEvaluator``: every
``communicate_info`` string must appear, lower-cased, in one assistant
message with its commas removed.

>>> rows = tau2_task_rows([{"id": "7", "user_scenario": {"instructions": "Cancel ABC."},
...     "evaluation_criteria": {"actions": [{"name": "cancel", "arguments": {"id": "ABC"}}],
...                             "communicate_info": ["1,000"], "reward_basis": ["DB"]}}],
...     domain="airline")
>>> rows[0]["id"], rows[0]["expected_tools"], rows[0]["input"]
('airline-7', [{'name': 'cancel', 'args': {'id': 'ABC'}}], 'Cancel ABC.')
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tooleval.benchmarks._files import convert_json_list
from tooleval.errors import FormatError
from tooleval.model import AssistantMessage, Diagnosis, MetricInfo, Result, Sample

__all__ = ["METRICS", "load_tau2_tasks", "tau2_communicate", "tau2_task_rows"]

# tau2's user scenario instructions, in the order its user simulator is shown them.
_INSTRUCTION_PARTS = (
    "domain",
    "reason_for_call",
    "known_info",
    "unknown_info",
    "task_instructions",
)


def _instruction(scenario: Any, where: str) -> str:
    if not isinstance(scenario, Mapping):
        raise FormatError("expected an object with instructions", field=where)
    instructions = scenario.get("instructions")
    if isinstance(instructions, str) and instructions.strip():
        return instructions
    if not isinstance(instructions, Mapping):
        raise FormatError(
            "expected instructions (text or an object)", field=f"{where}.instructions"
        )
    parts = [
        f"{key}: {instructions[key]}"
        for key in _INSTRUCTION_PARTS
        if isinstance(instructions.get(key), str) and instructions[key].strip()
    ]
    if not parts:
        raise FormatError("the instructions hold no text", field=f"{where}.instructions")
    return "\n".join(parts)


def tau2_task_rows(tasks: Sequence[Any], *, domain: str) -> list[dict[str, Any]]:
    """One canonical episode row per tau2 task (see the module docstring).

    Only the assistant's gold actions go to ``expected_tools`` (a user-side
    action, telecom's, is the simulated user's to take); a task with an
    ``initial_state`` is refused, naming it, since rows here start from the
    environment's own data.
    """
    rows = []
    for i, task in enumerate(tasks):
        where = f"tasks[{i}]"
        if not isinstance(task, Mapping) or "id" not in task:
            raise FormatError("expected a tau2 task object with an id", field=where)
        if task.get("initial_state"):
            raise FormatError(
                "has an initial_state; tau2 episode rows start from the domain's own data",
                field=f"{where}.initial_state",
            )
        criteria = task.get("evaluation_criteria") or {}
        if not isinstance(criteria, Mapping):
            raise FormatError("expected an object", field=f"{where}.evaluation_criteria")
        actions = criteria.get("actions") or []
        if not isinstance(actions, list):
            raise FormatError("expected a list", field=f"{where}.evaluation_criteria.actions")
        gold = []
        for j, action in enumerate(actions):
            if not isinstance(action, Mapping) or not isinstance(action.get("name"), str):
                raise FormatError(
                    "expected an action with a name",
                    field=f"{where}.evaluation_criteria.actions[{j}]",
                )
            if action.get("requestor") in (None, "assistant"):
                gold.append({"name": action["name"], "args": dict(action.get("arguments") or {})})
        scenario = task.get("user_scenario")
        instruction = _instruction(scenario, f"{where}.user_scenario")
        persona = scenario.get("persona") if isinstance(scenario, Mapping) else None
        rows.append(
            {
                "id": f"{domain}-{task['id']}",
                "input": instruction,
                "instruction": instruction,
                **({"persona": persona} if isinstance(persona, str) and persona else {}),
                "expected_tools": gold,
                "category": domain,
                "metadata": {
                    "tau2": {
                        "task_id": str(task["id"]),
                        "reward_basis": list(criteria.get("reward_basis") or []),
                        "communicate_info": list(criteria.get("communicate_info") or []),
                        "nl_assertions": list(criteria.get("nl_assertions") or []),
                    }
                },
            }
        )
    return rows


def load_tau2_tasks(path: str | Path, *, domain: str) -> list[dict[str, Any]]:
    """The episode rows of a tau2 ``tasks.json`` (write them as JSONL for ``tooleval run``)."""
    return convert_json_list(path, "tau2 tasks", lambda tasks: tau2_task_rows(tasks, domain=domain))


def tau2_communicate(sample: Sample) -> Result:
    """tau2's COMMUNICATE check: every ``communicate_info`` string in one assistant message.

    The strings are ``sample.metadata["tau2"]["communicate_info"]``; the
    texts are the assistant messages of the transcript (the final output when
    the connector kept no transcript). A task with none passes, as in tau2.
    """
    name = "tau2_communicate"
    meta = (sample.metadata or {}).get("tau2")
    if not isinstance(meta, Mapping) or "communicate_info" not in meta:
        return Result.unscored(name, "no metadata['tau2']['communicate_info'] for this row")
    wanted = meta["communicate_info"]
    if not isinstance(wanted, list) or not all(isinstance(w, str) for w in wanted):
        return Result.unscored(name, "metadata['tau2']['communicate_info'] is not a list of text")
    texts = [m.content for m in sample.messages if isinstance(m, AssistantMessage) and m.content]
    if not sample.messages and sample.output:
        texts = [str(sample.output)]
    said = [text.lower().replace(",", "") for text in texts]
    missing = [w for w in wanted if not any(w.lower() in text for text in said)]
    reason = (
        f"{len(wanted) - len(missing)}/{len(wanted)} facts communicated"
        + (f"; not said: {json.dumps(missing)}" if missing else "")
        if wanted
        else "nothing to communicate (tau2 gives 1)"
    )
    return Result.scored(
        name,
        0.0 if missing else 1.0,
        reason=reason,
        threshold=1.0,
        diagnosis=Diagnosis(details={"missing": missing}),
    )


METRICS = (
    MetricInfo(
        name="tau2_communicate",
        description="tau2-bench's COMMUNICATE check: every communicate_info string in an "
        "assistant message (lower-cased, commas removed)",
        params={},
        requires=("output",),
        needs_judge=False,
        score_sample=tau2_communicate,
    ),
)
