"""Repeats read back: pass^k / pass@k, spread, flaky rows of a stored repeated run.

A run made with ``tooleval run PLAN --repeat N`` stores each attempt as its own
row (see :mod:`tooleval.runs.repeats` for the layout); its config records
``repeat: {n, stride}``. This module reads those stored rows.

From the attempts of a row with ``c`` passing attempts out of ``n``
(an error attempt counts as not passed, as the gate counts it):

- pass^k = C(c, k) / C(n, k): the chance that k attempts all pass
  (tau-bench's reliability measure; pass^n is "passed every time");
- pass@k = 1 - C(n - c, k) / C(n, k): the chance that one of k passes;
- flaky: some attempts passed and some did not;
- spread: the largest max - min of one metric's score across attempts.

>>> round(pass_hat_k(3, 2, 2), 3), round(pass_at_k(3, 1, 2), 3)
(0.333, 0.667)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from math import comb
from typing import Any

from tooleval.errors import ConfigError
from tooleval.store import StoreReader
from tooleval.store.records import RowRecord, RunInfo

__all__ = [
    "GATE_ON",
    "RepeatSummary",
    "RowRepeats",
    "analyse_repeats",
    "pass_at_k",
    "pass_hat_k",
    "repeat_gate",
    "repeat_lines",
    "repeat_of",
    "summarise_run",
]

#: What ``--gate-on`` may choose for the pass-rate floors of a repeated run.
GATE_ON = ("attempts", "pass^k", "pass@k")


def pass_hat_k(n: int, c: int, k: int) -> float:
    """pass^k for one row: the chance that ``k`` of its ``n`` attempts (``c`` passed) all pass.

    >>> pass_hat_k(4, 4, 4), pass_hat_k(4, 3, 4)
    (1.0, 0.0)
    """
    return comb(c, k) / comb(n, k)


def pass_at_k(n: int, c: int, k: int) -> float:
    """pass@k for one row: the chance that one of ``k`` of its ``n`` attempts passes.

    >>> pass_at_k(4, 1, 4), pass_at_k(4, 0, 4)
    (1.0, 0.0)
    """
    return 1.0 - comb(n - c, k) / comb(n, k)


def repeat_of(run: RunInfo) -> tuple[int, int] | None:
    """``(n, stride)`` of a repeated run, None for a run made once per row."""
    spec = run.config.get("repeat") if isinstance(run.config, Mapping) else None
    if not isinstance(spec, Mapping):
        return None
    n, stride = spec.get("n"), spec.get("stride")
    if not isinstance(n, int) or not isinstance(stride, int) or n < 2 or stride < 1:
        return None
    return n, stride


@dataclass(frozen=True, slots=True)
class RowRepeats:
    """One dataset row across its attempts."""

    row_id: str
    category: str | None
    attempts: int
    passed: int
    errors: int
    spread: float
    verdicts: tuple[bool | None, ...]
    metric_passed: dict[str, int] = field(default_factory=dict)
    metric_counted: dict[str, int] = field(default_factory=dict)
    first_index: int | None = None  # the store index of attempt 1 (attempt k: + (k-1) * stride)
    unscored: int = 0  # attempts with no verdict (no error): neither passed nor failed

    @property
    def scored(self) -> int:
        """Attempts that count: passed, failed or an error (unscored ones stand apart)."""
        return self.attempts - self.unscored

    @property
    def flaky(self) -> bool:
        """Some attempts passed and some did not (errors count as not passed)."""
        return 0 < self.passed < self.scored

    def to_dict(self) -> dict[str, Any]:
        return {
            "row_id": self.row_id,
            "category": self.category,
            "attempts": self.attempts,
            "passed": self.passed,
            "errors": self.errors,
            "spread": self.spread,
            "flaky": self.flaky,
            "verdicts": list(self.verdicts),
        }


@dataclass(frozen=True, slots=True)
class RepeatSummary:
    """pass^k and pass@k for k = 1..n over rows, per category and per metric; flaky rows."""

    n: int
    rows: tuple[RowRepeats, ...]

    @property
    def complete(self) -> tuple[RowRepeats, ...]:
        """Rows with all n attempts stored (a stopped run may have fewer)."""
        return tuple(r for r in self.rows if r.attempts == self.n)

    def pass_hat(self, k: int | None = None, category: str | None = None) -> float | None:
        return self._mean(pass_hat_k, k, category)

    def pass_at(self, k: int | None = None, category: str | None = None) -> float | None:
        return self._mean(pass_at_k, k, category)

    def _mean(self, fn: Any, k: int | None, category: str | None) -> float | None:
        k = self.n if k is None else k
        # the read model's rule (analysis.figures): unscored attempts stand apart, a row with
        # none scored is left out, and k goes up to the fewest scored attempts of a row
        rows = [
            r
            for r in self.complete
            if r.scored and (category is None or (r.category or "(none)") == category)
        ]
        if not rows or k > min(r.scored for r in rows):
            return None
        return sum(fn(r.scored, r.passed, k) for r in rows) / len(rows)

    @property
    def flaky(self) -> tuple[RowRepeats, ...]:
        return tuple(r for r in self.complete if r.flaky)

    @property
    def categories(self) -> list[str]:
        return sorted({r.category or "(none)" for r in self.rows})

    def to_dict(self) -> dict[str, Any]:
        ks = range(1, self.n + 1)
        return {
            "n": self.n,
            "rows_complete": len(self.complete),
            "pass_hat_k": {str(k): self.pass_hat(k) for k in ks},
            "pass_at_k": {str(k): self.pass_at(k) for k in ks},
            "categories": {
                c: {
                    "pass_hat_k": self.pass_hat(category=c),
                    "pass_at_k": self.pass_at(category=c),
                    "flaky": sum(1 for r in self.flaky if (r.category or "(none)") == c),
                }
                for c in self.categories
            },
            "flaky": [r.row_id for r in self.flaky],
            "rows": [r.to_dict() for r in self.rows],
        }

    def digest(self, *, limit: int = 50) -> dict[str, Any]:
        """What a page shows of this summary, JSON-safe and small whatever the row count.

        pass^k and pass@k for k = 1..n, per category, the flaky-row count and the
        first ``limit`` flaky rows: the document a report caches for a stopped run.

        >>> row = RowRepeats("r1", "refund", 2, 1, 0, 1.0, (True, False))
        >>> d = RepeatSummary(n=2, rows=(row,)).digest()
        >>> d["pass_hat"], d["pass_at"], d["flaky_total"], d["flaky"][0]["verdicts"]
        ([0.5, 0.0], [0.5, 1.0], 1, [True, False])
        """
        flaky = self.flaky
        ks = range(1, self.n + 1)
        return {
            "n": self.n,
            "rows": len(self.rows),
            "complete": len(self.complete),
            "pass_hat": [self.pass_hat(k) for k in ks],
            "pass_at": [self.pass_at(k) for k in ks],
            "categories": [
                {
                    "name": c,
                    "pass_hat": self.pass_hat(category=c),
                    "pass_at": self.pass_at(category=c),
                    "flaky": sum(1 for r in flaky if (r.category or "(none)") == c),
                }
                for c in self.categories
            ],
            "flaky_total": len(flaky),
            "flaky": [
                {
                    "row_id": r.row_id,
                    "category": r.category,
                    "attempts": r.attempts,
                    "passed": r.passed,
                    "spread": r.spread,
                    "verdicts": list(r.verdicts),
                    "index": r.first_index,
                }
                for r in flaky[:limit]
            ],
        }


def analyse_repeats(rows: Iterable[RowRecord], n: int, stride: int) -> RepeatSummary:
    """Group a repeated run's stored rows by dataset row and measure them."""
    groups: dict[int, list[RowRecord]] = {}
    for row in rows:
        groups.setdefault(row.index % stride, []).append(row)
    measured = []
    for base in sorted(groups):
        attempts = sorted(groups[base], key=lambda r: r.index)
        first = attempts[0]
        row_id = str(first.sample.metadata.get("dataset_row_id") or first.row_id.split("#")[0])
        verdicts = tuple(None if r.error else r.passed for r in attempts)
        passed = sum(1 for r in attempts if not r.error and r.passed)
        metric_passed: dict[str, int] = {}
        metric_counted: dict[str, int] = {}
        scores: dict[str, list[float]] = {}
        for r in attempts:
            for result in r.results:
                if r.error is not None or result.passed is not None:
                    metric_counted[result.metric] = metric_counted.get(result.metric, 0) + 1
                if r.error is None and result.passed:
                    metric_passed[result.metric] = metric_passed.get(result.metric, 0) + 1
                if result.score is not None:
                    scores.setdefault(result.metric, []).append(result.score)
        spread = max((max(s) - min(s) for s in scores.values() if s), default=0.0)
        measured.append(
            RowRepeats(
                row_id=row_id,
                category=first.category,
                attempts=len(attempts),
                passed=passed,
                errors=sum(1 for r in attempts if r.error),
                spread=spread,
                verdicts=verdicts,
                metric_passed=metric_passed,
                metric_counted=metric_counted,
                first_index=first.index,
                unscored=sum(1 for r in attempts if r.error is None and r.passed is None),
            )
        )
    return RepeatSummary(n=n, rows=tuple(measured))


def summarise_run(store: StoreReader, run: RunInfo) -> RepeatSummary | None:
    """The repeat summary of a stored run, None when it was not repeated."""
    spec = repeat_of(run)
    if spec is None:
        return None
    return analyse_repeats(store.iter_rows(run.id), *spec)


def repeat_gate(
    run: RunInfo,
    gate_spec: Any,
    summary: RepeatSummary | None,
    on: str,
    *,
    rows: Iterable[RowRecord] | None = None,
) -> Any:
    """The gate with its pass-rate floors read on pass^k or pass@k of every metric.

    ``on="attempts"`` (or a run made once) is the ordinary gate: each
    attempt counts as a row. Otherwise each floor is checked on the rows'
    unbiased pass^K (or pass@K) with its interval over rows, never the
    plug-in (c/n)^K (:func:`tooleval.analysis.gate.evaluate_gate` with
    ``gate_on``); ``rows`` (the stored rows) add the clusters and the mean
    scores' spread. The error budget is checked on attempts always.
    """
    from tooleval.analysis.gate import evaluate_gate

    if on not in GATE_ON:
        raise ConfigError(f"expected one of {', '.join(GATE_ON)}, got {on!r}", field="--gate-on")
    if on == "attempts" or summary is None:
        return evaluate_gate(run, gate_spec, rows=rows)
    return evaluate_gate(run, gate_spec, rows=rows, gate_on=on, repeats=summary)


def repeat_lines(summary: RepeatSummary, *, limit: int = 10) -> list[str]:
    """Plain-text lines for the terminal: pass^k / pass@k, per category, flaky rows."""
    ks = range(1, summary.n + 1)

    def pct(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.1%}"

    lines = [
        f"repeats: {summary.n} attempts per row, {len(summary.complete)} rows complete",
        "  pass^k  " + "  ".join(f"k={k}: {pct(summary.pass_hat(k))}" for k in ks),
        "  pass@k  " + "  ".join(f"k={k}: {pct(summary.pass_at(k))}" for k in ks),
    ]
    for category in summary.categories:
        name = category
        n_flaky = sum(1 for r in summary.flaky if (r.category or "(none)") == category)
        lines.append(
            f"  {category}: pass^{summary.n} {pct(summary.pass_hat(category=name))}, "
            f"pass@{summary.n} {pct(summary.pass_at(category=name))}, {n_flaky} flaky"
        )
    flaky = summary.flaky
    lines.append(f"flaky rows (pass on some attempts, fail on others): {len(flaky)}")
    for row in flaky[:limit]:
        marks = "".join("E" if v is None else ("P" if v else "F") for v in row.verdicts)
        lines.append(f"  {row.row_id}: {row.passed}/{row.attempts} passed [{marks}]")
    if len(flaky) > limit:
        lines.append(f"  ... and {len(flaky) - limit} more")
    return lines
