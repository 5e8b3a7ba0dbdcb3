"""One gate floor decided: a figure with its interval against a threshold.

The pure core of the gate (:mod:`tooleval.analysis.gate`), reusable by any
command that checks a floor (``score --min-pass-rate``, a notebook):
:func:`decide_floor` takes counts (``passed``, ``failed``) or per-row values
(``scores``: one number per row, or a row's attempts), a threshold, the
``confidence`` and the ``on_uncertain`` policy, and returns a
:class:`GateCheck` that says the figure, its interval, n, K, the threshold
and which rule decided:

- ``interval`` (a ``confidence`` is given): pass when the lower bound is
  >= T, fail when the upper bound is < T, *uncertain* in between, and the
  policy decides an uncertain check (``fail``, the default; ``pass``; or
  ``point``: the point estimate decides);
- ``point`` (no ``confidence``): the point estimate decides; the 95%
  interval is still computed and shown, so the reader sees the noise;
- ``no rows``: nothing was scored, so nothing can reach a floor: it fails.

The dataset row is the unit: a row's attempts are averaged first, and the
interval is Wilson for one 0/1 verdict per row, a t interval over row means
otherwise (clustered with ``clusters``), see :func:`tooleval.stats.summarize`.
``estimator="pass^k"`` (or ``"pass@k"``) reads each row's unbiased
C(c, k) / C(K, k) (or 1 − C(K−c, k) / C(K, k)) and takes its SE over rows,
never the plug-in (c/n)^k.

>>> check = decide_floor(0.8, passed=42, failed=8, confidence=0.95)
>>> check.outcome, check.passed, check.rule, check.n
('uncertain', False, 'interval', 50)
>>> check.message
'pass rate 84.0% [71.5, 91.7] (95% wilson, n=50, K=1) vs 80.0%: uncertain at 95% (on_uncertain: fail, so failed)'
>>> decide_floor(0.5, scores=[[1, 1, 0], [1, 1, 1], [0, 1, 1]], estimator="pass^k", k=3).value
0.3333333333333333
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tooleval.errors import ConfigError
from tooleval.stats import (
    ON_UNCERTAIN,
    Interval,
    pass_at_k,
    pass_hat_k,
    summarize,
    threshold_verdict,
)
from tooleval.stats.tally import Tally

__all__ = [
    "ESTIMATORS",
    "RULES",
    "Figure",
    "GateCheck",
    "GateResult",
    "check_fraction",
    "counts_figure",
    "decide",
    "decide_floor",
    "rows_figure",
]

#: How a check was decided.
RULES = ("interval", "point", "count", "no rows", "invalid")
#: What ``decide_floor`` reads off the rows: the mean (a rate or a score), pass^k, pass@k.
ESTIMATORS = ("mean", "pass^k", "pass@k")
#: The confidence of the interval shown beside a point-estimate check.
DISPLAY_CONFIDENCE = 0.95


@dataclass(frozen=True, slots=True)
class GateCheck:
    """One floor checked: the figure, its interval, n, K, the threshold, the rule, the verdict.

    ``outcome`` is ``pass`` / ``fail`` / ``uncertain``; ``passed`` applies the
    ``on_uncertain`` policy to an uncertain outcome. ``rule`` says what decided
    (:data:`RULES`). Checks built by older tooleval carry only the first seven
    fields; the others default.
    """

    name: str
    value: float | None
    required: float
    passed: bool
    message: str
    interval: Interval | None = None
    outcome: str | None = None
    what: str = ""
    n: int | None = None
    attempts: tuple[int, int] | None = None  # (fewest, most) attempts per row
    clusters: int | None = None
    rule: str | None = None
    on_uncertain: str | None = None
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "value": self.value,
            "required": self.required,
            "passed": self.passed,
            "message": self.message,
            "interval": self.interval.to_dict() if self.interval else None,
            "outcome": self.outcome,
            "what": self.what,
            "n": self.n,
            "k": self.attempts[1] if self.attempts else None,
            "attempts": list(self.attempts) if self.attempts else None,
            "clusters": self.clusters,
            "rule": self.rule,
            "on_uncertain": self.on_uncertain,
            "notes": list(self.notes),
        }


@dataclass(frozen=True, slots=True)
class GateResult:
    """Every check of the gate; ``passed`` when all of them passed (or there were none)."""

    checks: tuple[GateCheck, ...] = ()
    configured: bool = False

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)

    def to_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "configured": self.configured,
            "checks": [c.to_dict() for c in self.checks],
        }


@dataclass(frozen=True, slots=True)
class Figure:
    """What a floor is checked on: the estimate and its interval over ``n`` rows."""

    value: float
    interval: Interval
    n: int
    attempts: tuple[int, int]
    clusters: int | None = None
    notes: tuple[str, ...] = ()


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def check_fraction(value: Any, field: str, *, open_ends: bool = False) -> float:
    """A number in [0, 1] (or (0, 1) with ``open_ends``), else a ConfigError naming ``field``.

    >>> check_fraction(0.8, "gate.min_pass_rate")
    0.8
    >>> check_fraction(1.5, "--min-pass-rate")
    Traceback (most recent call last):
    ...
    tooleval.errors.ConfigError: field --min-pass-rate: expected a number between 0 and 1, got 1.5
    """
    ok = not isinstance(value, bool) and isinstance(value, int | float) and not math.isnan(value)
    if ok:
        ok = 0.0 < value < 1.0 if open_ends else 0.0 <= value <= 1.0
    if not ok:
        example = " (e.g. 0.95)" if open_ends else ""
        raise ConfigError(f"expected a number between 0 and 1{example}, got {value!r}", field=field)
    return float(value)


def _check_policy(on_uncertain: Any, field: str) -> str:
    if on_uncertain not in ON_UNCERTAIN:
        raise ConfigError(
            f"expected one of {', '.join(ON_UNCERTAIN)}, got {on_uncertain!r}", field=field
        )
    return str(on_uncertain)


def _context(figure: Figure, *, bounds: bool = False) -> str:
    """``95% wilson, n=50, K=1`` (``95% wilson [71.5, 91.7], n=50, K=1`` with ``bounds``)."""
    i = figure.interval
    low, high = figure.attempts
    k = f"K={low}" if low == high else f"K={low}-{high}"
    clusters = f", {figure.clusters} clusters" if figure.clusters is not None else ""
    shown = f" {_bounds(i)}" if bounds else ""
    return f"{i.confidence:.0%} {i.method}{shown}, n={figure.n}, {k}{clusters}"


def _bounds(interval: Interval) -> str:
    return f"[{100 * interval.low:.1f}, {100 * interval.high:.1f}]"


def decide(
    figure: Figure | None,
    threshold: float,
    *,
    confidence: float | None = None,
    on_uncertain: str = "fail",
    name: str = "",
    what: str = "pass rate",
    how: str = "",
) -> GateCheck:
    """Decide one floor on a :class:`Figure` (None: no rows, so it fails).

    ``how`` is said after the figure (e.g. ``" over 6 rows"``); ``name``
    prefixes the message (``"tool_f1: ..."``).
    """
    head = f"{name}: " if name else ""
    if figure is None:
        message = f"{head}no scored rows, so {what} cannot reach {_pct(threshold)}"
        return GateCheck(
            name, None, threshold, False, message, None, "fail", what, 0, rule="no rows"
        )

    def check(passed: bool, message: str, outcome: str, rule: str, policy: str | None) -> GateCheck:
        return GateCheck(
            name,
            figure.value,
            threshold,
            passed,
            message,
            figure.interval,
            outcome,
            what,
            figure.n,
            figure.attempts,
            figure.clusters,
            rule,
            policy,
            figure.notes,
        )

    if confidence is None:
        ok = figure.value >= threshold
        message = (
            f"{head}{what} {_pct(figure.value)}{how} {'>=' if ok else '<'} {_pct(threshold)} "
            f"(point estimate; {_context(figure, bounds=True)})"
        )
        return check(ok, message, "pass" if ok else "fail", "point", None)
    verdict = threshold_verdict(
        figure.interval, threshold, estimate=figure.value, on_uncertain=on_uncertain
    )
    if verdict.outcome == "uncertain":
        said = (
            f"uncertain at {confidence:.0%} (on_uncertain: {on_uncertain}, so "
            f"{'passed' if verdict.passed else 'failed'})"
        )
    else:
        sign = ">=" if verdict.outcome == "pass" else "<"
        said = f"{sign} {_pct(threshold)} at {confidence:.0%}"
    message = (
        f"{head}{what} {_pct(figure.value)} {_bounds(figure.interval)}{how} "
        f"({_context(figure)}) vs {_pct(threshold)}: {said}"
    )
    return check(verdict.passed, message, verdict.outcome, "interval", on_uncertain)


def _rows_of(scores: Sequence[Any]) -> list[list[float]]:
    rows: list[list[float]] = []
    for i, row in enumerate(scores):
        values = [row] if isinstance(row, int | float) else row
        if isinstance(values, str | bytes) or not isinstance(values, Sequence) or not values:
            raise ValueError(f"row {i}: expected a number or a non-empty list of numbers")
        out = []
        for v in values:
            if isinstance(v, bool):
                v = float(v)
            if not isinstance(v, int | float) or not math.isfinite(v):
                raise ValueError(f"row {i}: expected finite numbers, got {v!r}")
            out.append(float(v))
        rows.append(out)
    return rows


def _k_rows(
    rows: list[list[float]], clusters: Sequence[Hashable] | None, estimator: str, k: int
) -> tuple[list[list[float]], list[Hashable] | None, list[str]]:
    """Each row with at least k attempts as its unbiased pass^k / pass@k (a one-value row)."""
    fn = pass_hat_k if estimator == "pass^k" else pass_at_k
    kept: list[list[float]] = []
    keys: list[Hashable] = []
    for i, row in enumerate(rows):
        if any(v not in (0.0, 1.0) for v in row):
            raise ValueError(f"row {i}: {estimator} needs 0/1 verdicts, got {row}")
        if len(row) >= k:
            kept.append([fn(len(row), int(sum(row)), k)])
            if clusters is not None:
                keys.append(clusters[i])
    notes = []
    if len(kept) < len(rows):
        notes.append(f"{len(rows) - len(kept)} rows with fewer than {k} attempts left out")
    return kept, (keys if clusters is not None else None), notes


def counts_figure(passed: int, failed: int, confidence: float) -> Figure | None:
    """A pass rate of ``passed`` of ``passed + failed`` one-attempt rows, Wilson (None: no rows)."""
    if not (isinstance(passed, int) and isinstance(failed, int)) or min(passed, failed) < 0:
        raise ValueError(f"expected whole counts >= 0, got passed={passed}, failed={failed}")
    found = Tally(passed, failed).rate_estimate(confidence)  # the one tally's Wilson
    if found is None:
        return None
    return Figure(found.value, found.interval, found.n, (1, 1))


def rows_figure(
    scores: Sequence[Any],
    *,
    confidence: float,
    clusters: Sequence[Hashable] | None = None,
    estimator: str = "mean",
    k: int | None = None,
) -> Figure | None:
    """The figure over rows: ``scores[i]`` is row i's value or attempts (None: no rows)."""
    rows = _rows_of(scores)
    if clusters is not None and len(clusters) != len(rows):
        raise ValueError(f"{len(rows)} rows but {len(clusters)} cluster keys")
    sizes = [len(r) for r in rows]
    notes: list[str] = []
    if estimator != "mean":
        if k is None:
            raise ValueError(f"{estimator} needs k")
        rows, clusters, notes = _k_rows(rows, clusters, estimator, k)
    if not rows:
        return None
    s = summarize(rows, clusters=clusters, confidence=confidence)
    span = (min(sizes), max(sizes))
    return Figure(s.mean, s.interval, s.n, span, s.clusters, (*notes, *s.notes))


def decide_floor(
    threshold: float,
    *,
    passed: int | None = None,
    failed: int | None = None,
    scores: Sequence[Any] | None = None,
    estimator: str = "mean",
    k: int | None = None,
    confidence: float | None = None,
    on_uncertain: str = "fail",
    clusters: Sequence[Hashable] | None = None,
    name: str = "",
    what: str | None = None,
    keys: Mapping[str, str] | None = None,
) -> GateCheck:
    """Decide one floor from counts (``passed``, ``failed``) or per-row values (``scores``).

    ``scores[i]`` is row i's value or its attempts (0/1 verdicts for a pass
    rate, scores for a mean score). ``estimator`` ``"pass^k"`` / ``"pass@k"``
    needs ``k`` and 0/1 attempts; rows with fewer than k attempts are left out
    (and the check says how many). ``keys`` names the plan key or flag of each
    argument for the error message (default: the argument's name), e.g.
    ``{"threshold": "--min-pass-rate", "confidence": "--confidence"}``.

    >>> decide_floor(0.8, passed=190, failed=10, confidence=0.95).outcome
    'pass'
    >>> decide_floor(0.8, scores=[0.9, 0.7, 0.95], what="mean score").rule
    'point'
    """
    names = dict(keys or {})
    threshold = check_fraction(threshold, names.get("threshold", "threshold"))
    if confidence is not None:
        confidence = check_fraction(
            confidence, names.get("confidence", "confidence"), open_ends=True
        )
    on_uncertain = _check_policy(on_uncertain, names.get("on_uncertain", "on_uncertain"))
    if estimator not in ESTIMATORS:
        raise ConfigError(
            f"expected one of {', '.join(ESTIMATORS)}, got {estimator!r}",
            field=names.get("estimator", "estimator"),
        )
    if (scores is None) == (passed is None and failed is None):
        raise ValueError("give either passed and failed counts or scores, not both or neither")
    if clusters is not None and scores is None:
        raise ValueError("clusters need each row's scores (scores=), not counts")
    if estimator != "mean":
        if scores is None:
            raise ValueError(f"{estimator} needs each row's attempts (scores=), not counts")
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ConfigError(f"expected a whole number >= 1, got {k!r}", field=names.get("k", "k"))
    level = DISPLAY_CONFIDENCE if confidence is None else confidence
    if scores is None:
        if passed is None or failed is None:
            raise ValueError("counts need both passed and failed")
        figure = counts_figure(passed, failed, level)
    else:
        figure = rows_figure(scores, confidence=level, clusters=clusters, estimator=estimator, k=k)
    label = what or ("pass rate" if estimator == "mean" else estimator.replace("k", str(k)))
    return decide(
        figure, threshold, confidence=confidence, on_uncertain=on_uncertain, name=name, what=label
    )
