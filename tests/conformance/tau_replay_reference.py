"""tau-bench's own ``Env.calculate_reward``, run as the reference for the replay tests.

tau-bench's package imports ``litellm`` for its user simulator; the reward
never calls it, so the reference installs an empty stand-in module for the
import only, and a user that answers nothing. Everything else is tau-bench's
code from the source folder.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tests.conftest import SHARED_DATA

from tooleval.benchmarks.tau_bench.replay import Action, actions_from_messages, replay_reward

SOURCE = SHARED_DATA / "tau_bench" / "source"
TRAJECTORIES = SHARED_DATA / "tau_bench" / "trajectories"


@contextmanager
def tau_bench_imported() -> Iterator[Any]:
    before = set(sys.modules)
    stand_in = types.ModuleType("litellm")

    def completion(**_: Any) -> Any:
        raise RuntimeError("the reward reference never calls an LLM")

    stand_in.completion = completion  # type: ignore[attr-defined]
    sys.modules.setdefault("litellm", stand_in)
    sys.path.insert(0, str(SOURCE))
    try:
        import tau_bench.envs.airline.env as airline
        import tau_bench.envs.retail.env as retail
        from tau_bench.types import Action, Task

        yield types.SimpleNamespace(
            envs={"airline": airline.MockAirlineDomainEnv, "retail": retail.MockRetailDomainEnv},
            Action=Action,
            Task=Task,
        )
    finally:
        sys.path.remove(str(SOURCE))
        for name in set(sys.modules) - before:
            if name == "litellm" or name.startswith("tau_bench"):
                del sys.modules[name]


class _SilentUser:
    def step(self, content: str) -> str:
        return ""

    def get_total_cost(self) -> float:
        return 0.0


_ENVIRONMENTS: dict[Any, Any] = {}


def _environment(env_cls: Any) -> Any:
    """One instance per environment class, reused as tau-bench's own ``reset`` reuses it.

    Each reward sets the task, fresh data and an empty action list below, which is all
    ``Env.reset`` renews; building the class again would only reload its task list.
    """
    env = _ENVIRONMENTS.get(env_cls)
    if env is None:
        env = _ENVIRONMENTS[env_cls] = env_cls(user_strategy="human", task_index=0)
        env.user = _SilentUser()
    return env


def reference_reward(
    tau: Any,
    env_cls: Any,
    task: dict[str, Any],
    actions: list[tuple[str, dict[str, Any]]],
    done: bool,
) -> tuple[float, Any]:
    """tau-bench's reward for ``actions`` on a fresh environment of ``env_cls``."""
    env = _environment(env_cls)
    env.task = tau.Task(
        user_id=task["user_id"],
        actions=[tau.Action(name=a["name"], kwargs=a["kwargs"]) for a in task["actions"]],
        instruction=task.get("instruction", ""),
        outputs=task.get("outputs", []),
    )
    env.data = env.data_load_func()
    env.actions = []
    for name, kwargs in actions:
        response = env.step(tau.Action(name=name, kwargs=kwargs))
        if response.done:
            return response.reward, response.info.reward_info
    if not done:
        return 0.0, None
    result = env.calculate_reward()
    return result.reward, result.info


def replay_run(domain: Any, run: dict[str, Any], **options: Any) -> Any:
    """tooleval's replay reward of one stored tau-bench run."""
    task = run["info"]["task"]
    actions, done = actions_from_messages(run["traj"])
    gold = [Action(a["name"], a["kwargs"]) for a in task["actions"]]
    return replay_reward(domain, gold, task.get("outputs", []), actions, done=done, **options)


def agreement_with_reference(domain: Any, runs: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """The runs whose replay reward differs from tau-bench's ``calculate_reward``."""
    disagree = []
    with tau_bench_imported() as tau:
        env_cls = tau.envs[domain.name]
        for run in runs:
            ours = replay_run(domain, run)
            actions, done = actions_from_messages(run["traj"])
            theirs, _ = reference_reward(
                tau, env_cls, run["info"]["task"], [(a.name, dict(a.kwargs)) for a in actions], done
            )
            if ours.reward != theirs:
                disagree.append((run["task_id"], run["trial"], theirs, ours.reward))
    return disagree
