"""What a metric returns: a score with its reason and a structured diagnosis."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


# Not frozen: metrics build one per compared key (tens per row), and a frozen
# dataclass pays an ``object.__setattr__`` call per field. ``unsafe_hash``
# keeps the field-wise hash the frozen class had; nothing in tooleval assigns
# to a check after building it.
@dataclass(slots=True, unsafe_hash=True)
class ArgumentCheck:
    """One argument compared: which pair of calls, which key, both values."""

    tool: str
    key: str
    expected: Any
    actual: Any
    score: float
    expected_index: int | None = None
    actual_index: int | None = None
    matcher: str = "exact"
    missing: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "key": self.key,
            "expected": self.expected,
            "actual": self.actual,
            "score": self.score,
            "expected_index": self.expected_index,
            "actual_index": self.actual_index,
            "matcher": self.matcher,
            "missing": self.missing,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ArgumentCheck:
        return cls(**{k: data[k] for k in data if k in cls.__dataclass_fields__})


@dataclass(slots=True)
class Diagnosis:
    """Why a row scored what it did.

    ``missing`` and ``extra`` hold calls (as dicts ``{"name", "args", "index"}``),
    ``order_violations`` one readable string per broken ordering constraint,
    ``arguments`` every compared argument (mismatches have ``score < 1``), and
    ``details`` anything metric-specific (precision/recall, judge prompts and
    raw replies, ...).
    """

    missing: list[dict[str, Any]] = field(default_factory=list)
    extra: list[dict[str, Any]] = field(default_factory=list)
    order_violations: list[str] = field(default_factory=list)
    arguments: list[ArgumentCheck] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def argument_mismatches(self) -> list[ArgumentCheck]:
        return [a for a in self.arguments if a.score < 1.0]

    def to_dict(self) -> dict[str, Any]:
        return {
            "missing": self.missing,
            "extra": self.extra,
            "order_violations": self.order_violations,
            "arguments": [a.to_dict() for a in self.arguments],
            "details": self.details,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Diagnosis:
        data = data or {}
        return cls(
            missing=list(data.get("missing", [])),
            extra=list(data.get("extra", [])),
            order_violations=list(data.get("order_violations", [])),
            arguments=[ArgumentCheck.from_dict(a) for a in data.get("arguments", [])],
            details=dict(data.get("details", {})),
        )


@dataclass(frozen=True, slots=True)
class Result:
    """A metric's verdict on one row.

    ``score`` is a float in [0, 1], or ``None`` when the row could not be
    scored (see :meth:`unscored`); ``passed`` is ``None`` then too.

    >>> r = Result.unscored("tool_correctness", "no expected_tools bound for this row")
    >>> r.score is None, r.passed
    (True, None)
    """

    metric: str
    score: float | None
    passed: bool | None
    reason: str
    params: dict[str, Any] = field(default_factory=dict)
    threshold: float | None = None
    diagnosis: Diagnosis = field(default_factory=Diagnosis)

    @classmethod
    def scored(
        cls,
        metric: str,
        score: float,
        *,
        reason: str,
        params: Mapping[str, Any] | None = None,
        threshold: float | None = None,
        diagnosis: Diagnosis | None = None,
    ) -> Result:
        """A scored result; ``passed`` is ``score >= threshold`` (``score == 1`` without one)."""
        value = float(score)
        if not 0.0 <= value <= 1.0 or value != value:
            raise ValueError(f"{metric}: score must be in [0, 1], got {score!r}")
        passed = value >= threshold if threshold is not None else value >= 1.0
        return cls(
            metric=metric,
            score=value,
            passed=passed,
            reason=reason,
            params=dict(params or {}),
            threshold=threshold,
            diagnosis=diagnosis or Diagnosis(),
        )

    @classmethod
    def unscored(
        cls,
        metric: str,
        reason: str,
        *,
        params: Mapping[str, Any] | None = None,
        threshold: float | None = None,
        diagnosis: Diagnosis | None = None,
    ) -> Result:
        """A row that could not be scored: a value, never a silent 0."""
        return cls(
            metric=metric,
            score=None,
            passed=None,
            reason=reason,
            params=dict(params or {}),
            threshold=threshold,
            diagnosis=diagnosis or Diagnosis(),
        )

    @property
    def is_scored(self) -> bool:
        return self.score is not None

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "params": self.params,
            "score": self.score,
            "threshold": self.threshold,
            "passed": self.passed,
            "reason": self.reason,
            "diagnosis": self.diagnosis.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Result:
        return cls(
            metric=data["metric"],
            score=data.get("score"),
            passed=data.get("passed"),
            reason=data.get("reason", ""),
            params=dict(data.get("params") or {}),
            threshold=data.get("threshold"),
            diagnosis=Diagnosis.from_dict(data.get("diagnosis")),
        )
