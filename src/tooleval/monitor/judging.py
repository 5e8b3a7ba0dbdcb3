"""Judged metrics on a sample of monitored sessions.

:class:`SampledJudging` picks sessions by a hash of their id (the same
sessions are picked on every pass, so the judge cache answers re-runs),
turns each into a Sample and runs judged metrics on it with the judge client
of :mod:`tooleval.llm`; the judge's own cache (on by default) keeps repeated
prompts from reaching the model again. Results are returned as
:class:`JudgedVerdict` and written as ``gen_ai.evaluation.result`` events next
to the detector findings.

>>> picked = [sid for sid in ("a", "b", "c", "d", "e", "f") if sampled(sid, 0.5)]
>>> picked == [sid for sid in ("a", "b", "c", "d", "e", "f") if sampled(sid, 0.5)]
True
>>> sampled("anything", 0.0), sampled("anything", 1.0)
(False, True)
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tooleval.errors import ConfigError, ToolEvalError
from tooleval.monitor.config_file import read_config_file
from tooleval.monitor.session import Session

__all__ = ["JUDGED_IN_MONITOR", "JudgedVerdict", "SampledJudging", "load_judge_config", "sampled"]

#: judged metrics that need nothing but the session (topic_adherence needs reference topics)
JUDGED_IN_MONITOR = ("task_success", "goal_accuracy", "tools_error")


def sampled(session_id: str, rate: float) -> bool:
    """Whether a session is in the sample: the first 8 bytes of sha256(id) below ``rate``."""
    if rate >= 1.0:
        return True
    if rate <= 0.0:
        return False
    digest = hashlib.sha256(session_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < rate


@dataclass(slots=True)
class JudgedVerdict:
    """One judged metric's result on one session (``score`` None: could not score)."""

    metric: str
    session_id: str
    score: float | None
    passed: bool | None
    reason: str
    trace_id: str | None = None
    span_id: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "session_id": self.session_id,
            "score": self.score,
            "passed": self.passed,
            "reason": self.reason,
            "trace_id": self.trace_id,
            "span_id": self.span_id,
        }


def _metric(name: str) -> Callable[..., Any]:
    if name == "task_success":
        from tooleval.judged.task_success import task_success

        return task_success
    if name == "goal_accuracy":
        from tooleval.judged.goal_accuracy import goal_accuracy

        return goal_accuracy
    if name == "tools_error":
        from tooleval.judged.tools_error import tools_error

        return tools_error
    raise ConfigError(
        f"judged metric {name!r} cannot run in monitor; choose from {', '.join(JUDGED_IN_MONITOR)}",
        field="--judge-metric",
    )


def load_judge_config(path: str | Path) -> dict[str, Any]:
    """A judge config file (JSON or YAML): ``{"type": "openai", "model": ..., "base_url": ...}``."""
    data = read_config_file(path, what="judge config", field="--judge")
    if isinstance(data, Mapping) and isinstance(data.get("judge"), Mapping):
        data = data["judge"]  # a plan's judge: section works as is
    if not isinstance(data, Mapping):
        raise ConfigError(f"judge config {path} must be a mapping with a 'type'", field="--judge")
    return dict(data)


class SampledJudging:
    """Run ``metrics`` with ``judge`` on the sessions :func:`sampled` picks at ``rate``."""

    def __init__(
        self, judge: Any, *, metrics: Sequence[str] = ("task_success",), rate: float = 0.05
    ) -> None:
        if not 0.0 <= rate <= 1.0:
            raise ConfigError(f"--sample must be between 0 and 1, got {rate}", field="--sample")
        self.client = judge
        self.rate = rate
        self.metrics = {name: _metric(name) for name in dict.fromkeys(metrics)}

    @classmethod
    def from_config(
        cls,
        config: Mapping[str, Any],
        *,
        metrics: Sequence[str] = ("task_success",),
        rate: float = 0.05,
    ) -> SampledJudging:
        from tooleval.llm import judge_from_config

        return cls(judge_from_config(config, field="--judge"), metrics=metrics, rate=rate)

    def judge_session(self, session: Session) -> list[JudgedVerdict]:
        """Every metric on one session (no sampling): a judge failure is an unscored verdict."""
        sample = session.to_sample()
        trace_id = session.trace_ids[0] if session.trace_ids else None
        span_id = next((c.span_id for c in session.calls if c.span_id), None)
        out = []
        for name, metric in self.metrics.items():
            try:
                result = metric(sample, judge=self.client)
                score, passed, reason = result.score, result.passed, result.reason or ""
            except ToolEvalError as exc:
                score, passed, reason = None, None, f"judge failed: {exc}"
            out.append(JudgedVerdict(name, session.id, score, passed, reason, trace_id, span_id))
        return out

    def judge(self, session: Session) -> list[JudgedVerdict]:
        """The verdicts for ``session`` when it is in the sample, else []."""
        if not sampled(session.id, self.rate):
            return []
        return self.judge_session(session)
