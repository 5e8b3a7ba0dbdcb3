"""``tau_bench_reward``: tau-bench's reward by replaying a run on tau-bench's own environment.

What ``tooleval score --format tau-bench`` grades with when tau-bench's
source is on this machine (``--data DIR``, ``$TOOLEVAL_TAU_BENCH_SOURCE`` or an
installed ``tau_bench``; see :mod:`~tooleval.benchmarks.tau_bench.replay_source`).
The rules are :func:`~tooleval.benchmarks.tau_bench.replay.replay_reward`'s.
Every result says how it was graded: ``details["grader"]`` is ``"replay"``
(with ``params["environment_version"]``), or ``"calls"`` for a row whose domain
environment could not be loaded, graded by ``tau_bench_actions`` instead with
the reason saying what was missing.

The agent's actions are read from the run's messages (one per assistant
message, as tau-bench's tool-calling agent executes them); a row with calls
but no messages (canonical rows, a stored run) replays each call in order and
counts as an ended episode.

>>> from tooleval.model import ExpectedTools
>>> tau_bench_reward(Sample(expected_tools=None)).reason
'no gold actions bound for this row'
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tooleval.benchmarks.tau_bench.metric import domain_of, tau_bench_actions
from tooleval.benchmarks.tau_bench.replay import (
    METRIC,
    Action,
    actions_from_sample,
    replay_reward,
    reward_result,
)
from tooleval.benchmarks.tau_bench.replay_source import DOMAINS, TauDomain, load_domain
from tooleval.errors import ConfigError
from tooleval.model import MetricInfo, Param, Result, Sample

__all__ = ["REWARD_METRICS", "tau_bench_reward"]


def tau_bench_reward(
    sample: Sample, *, source: str | None = None, domain: str | None = None
) -> Result:
    """tau-bench's reward (1.0 or 0.0) for one run, by replay; see the module docstring.

    ``source`` is the folder holding ``tau_bench/envs`` (None: where
    ``load_domain`` finds one); ``domain`` is ``airline`` or ``retail`` (None:
    the row's category, metadata or tool names, as ``tau_bench_actions`` tells).
    """
    params: dict[str, Any] = {"source": source, "domain": domain}
    if domain is not None and domain not in DOMAINS:
        raise ConfigError(
            f"domain must be one of {', '.join(DOMAINS)} (or null), got {domain!r}",
            field="domain",
        )
    if sample.expected_tools is None:
        return Result.unscored(METRIC, "no gold actions bound for this row", params=params)
    expected = list(sample.expected_tools.calls)
    chosen = domain_of(sample, domain, expected + sample.actual_calls())
    if chosen is None:
        return Result.unscored(
            METRIC,
            "cannot tell the tau-bench domain from the tool names; pass domain='airline' "
            "or domain='retail'",
            params=params,
        )
    try:
        environment = _environment(chosen, source)
    except ConfigError as exc:
        return _by_calls(sample, domain, params, str(exc))
    chosen = environment.name
    problem = _gold_problem(expected, environment.tools, chosen)
    if problem is not None:
        return Result.unscored(METRIC, problem, params=params)
    gold = [Action(c.name, dict(c.args or {})) for c in expected]
    meta = sample.metadata.get("tau_bench") or {}
    outputs = [str(o) for o in meta.get("outputs") or []]
    actions, done = actions_from_sample(sample) if sample.messages else _calls_only(sample)
    result = reward_result(replay_reward(environment, gold, outputs, actions, done=done))
    result.params.update(params)
    result.diagnosis.details.update(grader="replay", domain=chosen)
    return result


def _environment(chosen: str, source: str | None) -> TauDomain:
    """The domain's environment; for rows of shared read-only tools only, either domain's."""
    if chosen in DOMAINS:
        return load_domain(chosen, source)
    try:  # read-only tools both domains have: neither database changes
        return load_domain(DOMAINS[0], source)
    except ConfigError:
        return load_domain(DOMAINS[1], source)


def _calls_only(sample: Sample) -> tuple[list[Action], bool]:
    """A row with calls but no transcript: each call is an action; nothing says it did not end."""
    actions = [
        Action(c.name, {}, c.parse_error)
        if c.parse_error is not None
        else Action(c.name, dict(c.args or {}))
        for c in sample.actual_calls()
    ]
    return actions, True


def _gold_problem(expected: list[Any], tools: Any, domain: str) -> str | None:
    strange = sorted({c.name for c in expected if c.name not in tools})
    if strange:
        return (
            f"gold action(s) {', '.join(strange)} are not tau-bench {domain} tools; "
            "pass domain= if the domain was guessed wrong"
        )
    unnamed = [i for i, c in enumerate(expected) if c.args is None]
    if unnamed:
        return f"gold action {unnamed[0]} has no kwargs to replay"
    return None


def _by_calls(sample: Sample, domain: str | None, params: dict[str, Any], why: str) -> Result:
    """The row graded by ``tau_bench_actions`` (call matching), saying why not by replay."""
    found = tau_bench_actions(sample, domain=domain)
    found.diagnosis.details["grader"] = "calls"
    return replace(
        found,
        metric=METRIC,
        reason=f"graded by calls, not replay ({why}): {found.reason}",
        params={**params, **found.params},
    )


REWARD_METRICS = (
    MetricInfo(
        name=METRIC,
        description="tau-bench's reward by replay on tau-bench's own tools and data: the "
        "database after the agent's calls hashes as the gold actions' and every output is "
        "in a reply (details.grader says replay, or calls when the domain is not available)",
        params={
            "source": Param(
                None,
                "folder holding tau_bench/envs; null: $TOOLEVAL_TAU_BENCH_SOURCE or an "
                "installed tau_bench",
            ),
            "domain": Param(
                None,
                "tau-bench domain 'airline' or 'retail'; null: the row's category, "
                "metadata or tool names",
                choices=(None, *DOMAINS),
            ),
        },
        requires=("messages", "expected_tools"),
        needs_judge=False,
        score_sample=tau_bench_reward,
    ),
)
