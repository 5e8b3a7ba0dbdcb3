"""The noise-aware figures as one-line text, shared by the terminal, Markdown and JUnit.

>>> from tooleval.stats import summarize
>>> rate_text(summarize([[1.0]] * 17 + [[0.0]] * 3))
'85.0% [64.0, 94.8] (95% wilson, n=20, K=1)'
>>> pts(-0.042), pts(0.0)
('−4.2', '0.0')
"""

from __future__ import annotations

from typing import Any

from tooleval.analysis.figures import ALL, Estimate, RunFigures, SliceFigures, estimate_text
from tooleval.analysis.noise import MetricComparison
from tooleval.stats import RateSummary

__all__ = [
    "compare_detail",
    "compare_line",
    "gate_lines",
    "interval_lines",
    "pts",
    "rate_text",
]


def pts(value: float) -> str:
    """A difference of rates in percentage points, with a true minus sign."""
    text = f"{100 * value:.1f}"
    if text in ("-0.0", "0.0"):
        return "0.0"
    return text.replace("-", "−")


def rate_text(summary: RateSummary) -> str:
    """``82.0% [76.1, 87.0] (95% wilson, n=200, K=1)``, with the clusters when there are."""
    return estimate_text(Estimate.of(summary))


def _p(value: float) -> str:
    """``=0.035`` or ``<0.001``, to follow a ``p``."""
    return "<0.001" if value < 0.001 else f"={value:.3f}"


def compare_line(c: MetricComparison) -> str:
    """``Δ −4.2 pts [−7.3, −1.1] · regressed 12 / fixed 3 · McNemar p=0.035 · MDE@80% 4.5 pts ·
    REGRESSION``."""
    s = c.stats
    parts = [f"Δ {pts(s.delta)} pts [{pts(s.interval.low)}, {pts(s.interval.high)}]"]
    if s.mcnemar is not None:
        parts.append(f"regressed {s.mcnemar.regressed} / fixed {s.mcnemar.fixed}")
        parts.append(f"McNemar p{_p(s.mcnemar.p_exact)}")
    else:
        parts.append(f"paired t p{_p(s.p_value)}")
        if s.sign_flip is not None:
            parts.append(f"sign-flip p{_p(s.sign_flip.p_value)}")
    if s.mde == 0.0:
        parts.append("no variance (no row differs): no MDE")
    else:
        parts.append(f"MDE@{s.power:.0%} {pts(s.mde)} pts")
    parts.append(c.verdict.kind.upper())
    if c.verdict.why:
        parts.append(c.verdict.why)
    return " · ".join(parts)


def compare_detail(c: MetricComparison) -> str:
    """The figures behind the line: n, K, clusters, both SEs, the correlation, Holm, seeds."""
    s = c.stats
    k = f"K={s.attempts_a[1]}/{s.attempts_b[1]}"
    bits = [f"n={s.n} rows", k]
    if s.clusters is not None:
        bits.append(f"{s.clusters} clusters")
    bits.append(f"SE paired {pts(s.se_paired)} pts (unpaired {pts(s.se_unpaired)})")
    if s.correlation is not None:
        bits.append(f"Corr(A,B)={s.correlation:.2f}")
    bits.append(f"{s.interval.confidence:.0%} {s.interval.method}")
    bits.append(f"Holm p{_p(c.p_holm)}")
    if s.mcnemar is not None:
        bits.append(f"mid-p{_p(s.mcnemar.p_mid)}")
    if s.bootstrap is not None:
        b = s.bootstrap
        bits.append(f"bootstrap [{pts(b.low)}, {pts(b.high)}] (seed {b.seed}, {b.resamples})")
    if c.unpaired_rows:
        bits.append(f"{c.unpaired_rows} rows on one side only, left out")
    return ", ".join(bits)


def interval_lines(
    figures: RunFigures,
    *,
    category: str | None = None,
    bootstrap: dict[str, Any] | None = None,
) -> list[str]:
    """``runs show``'s block, rendered from the run's :class:`RunFigures`: each metric's pass
    rate (and mean score) with its interval, per category, pass@K / pass^K with their
    intervals and the flaky rows of a repeated run. ``category``: that category only.
    ``bootstrap``: per metric, a BCa cross-check of the pass rate."""
    top = ALL if category is None else category
    shown = [m for m in figures.metrics if (f := figures.get(m, top)) and f.pass_rate]
    if not shown:
        return ["intervals: no scored rows"]
    errors_rule = "; error rows count as not passed" if figures.errors else ""
    lines = [f"intervals ({figures.confidence:.0%}, the dataset row is the unit{errors_rule}):"]
    for metric in shown:
        overall = figures.slices[(metric, top)]
        assert overall.pass_rate is not None
        line = f"  {metric}: pass rate {estimate_text(overall.pass_rate)}"
        score = overall.mean_score
        if score is not None and score.interval.method != "wilson":
            i = score.interval
            line += f" · mean score {score.value:.3f} [{i.low:.3f}, {i.high:.3f}]"
        if overall.unscored:
            line += f" · {overall.unscored} unscored left out"
        lines.append(line)
        lines.extend(_repeat_lines(overall))
        lines.extend(f"    note: {note}" for note in overall.pass_rate.notes)
        if category is None:
            for where in figures.categories:
                part = figures.get(metric, where)
                if part is not None and part.pass_rate is not None:
                    lines.append(f"    {where}: {estimate_text(part.pass_rate)}")
        b = (bootstrap or {}).get(metric)
        if b is not None:
            lines.append(
                f"    bootstrap cross-check: [{100 * b.low:.1f}, {100 * b.high:.1f}] "
                f"(BCa over {b.unit}, {b.resamples} resamples, seed {b.seed})"
            )
    return lines


def _repeat_lines(f: SliceFigures) -> list[str]:
    if f.pass_hat_k is None or f.pass_at_k is None:
        return []
    hat, at = f.pass_hat_k, f.pass_at_k
    return [
        f"    pass^{f.k} {hat.value:.1%} {hat.bounds} ({hat.interval.method})"
        f" · pass@{f.k} {at.value:.1%} {at.bounds} ({at.interval.method})"
        f" · flaky rows {f.flaky}"
        + (
            f" · within-row variance {f.within_variance:.3f}"
            if f.within_variance is not None
            else ""
        )
    ]


def gate_lines(gate: Any) -> list[str]:
    """``runs show``'s gate block: each check (figure, interval, n, K, threshold, rule), the verdict.

    >>> from tooleval.analysis.gate import GateSpec, evaluate_gate
    >>> from tooleval.store.records import MetricSummary, RunInfo
    >>> run = RunInfo(id="r", name="n", created_at="t", status="finished", row_count=50,
    ...               summaries={"m": MetricSummary("m", scored=50, passed=42, failed=8)})
    >>> print("\\n".join(gate_lines(evaluate_gate(run, GateSpec(min_pass_rate=0.8, confidence=0.95)))))
    gate (the plan's, checked on the stored run):
      FAIL  m: pass rate 84.0% [71.5, 91.7] (95% wilson, n=50, K=1) vs 80.0%: uncertain at 95% (on_uncertain: fail, so failed)
      pass  errors: 0/50 rows (0.0%) <= 0.0% allowed (--max-error-rate, default 0)
    gate failed
    """
    if gate is None:
        return ["gate: none configured (add gate: to the plan; docs/ci.md)"]
    lines = ["gate (the plan's, checked on the stored run):"]
    for check in gate.checks:
        lines.append(f"  {'pass' if check.passed else 'FAIL'}  {check.message}")
        lines.extend(f"        note: {note}" for note in getattr(check, "notes", ()))
    lines.append(f"gate {'passed' if gate.passed else 'failed'}")
    return lines
