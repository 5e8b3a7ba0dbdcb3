"""The paired difference of two runs on a page (static compare report and viewer).

Each run's pass rate per metric and per category with its interval is the run's read
model (:func:`tooleval.analysis.figures.run_figures`, as on the run overview, so one rate
shows one interval on every page); the paired Δ of B against A, its interval, MDE and
verdict (regression / improvement / inconclusive, Holm-adjusted across the metrics and
categories) are the comparison's own statistics
(:attr:`tooleval.analysis.compare.Comparison.statistics`), kept as :func:`statistics_entries`
with the stored comparison and worded by :func:`tooleval.analysis.stat_lines.compare_line`
(the terminal's line). Nothing here computes a figure.

Every bar is an inline SVG in the theme's colours with its figures as text
beside it and as its accessible name.

>>> from tooleval.stats import Interval
>>> bar = delta_bar(-0.04, Interval(-0.07, -0.01, 0.95, "newcombe"), "regression", scale=0.1)
>>> 'role="img"' in bar and "delta-regression" in bar
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooleval.analysis.stat_lines import compare_line, pts
from tooleval.report.components import pct
from tooleval.report.html import Safe, el, frag
from tooleval.report.intervals import interval_bar
from tooleval.stats import Interval
from tooleval.store import StoreReader
from tooleval.store.records import RunInfo

__all__ = [
    "delta_bar",
    "noise_section",
    "paired_section",
    "rate_cell",
    "run_rates",
    "statistics_entries",
]

_WIDTH, _HEIGHT = 140, 14
ALL = "(all)"


def run_rates(store: StoreReader, run: RunInfo) -> dict[tuple[str, str], tuple[float, Any]]:
    """``{(metric, "(all)" or category): (pass rate, interval)}`` from the run's read model."""
    from tooleval.analysis.figures import run_figures

    figures = run_figures(store, run)
    return {
        key: (f.pass_rate.value, f.pass_rate.interval)
        for key, f in figures.slices.items()
        if key[0] in figures.metrics and key[1] != "(none)" and f.pass_rate is not None
    }


def statistics_entries(statistics: Sequence[Any]) -> list[dict[str, Any]]:
    """A comparison's paired statistics as the JSON-safe entries a page renders and a stored
    comparison keeps: ``metric``, ``slice``, ``delta``, ``interval`` (low, high, confidence,
    method), ``verdict`` (kind, label, mde, why), ``n`` (dataset rows paired), ``line``
    (the terminal's one-line summary, :func:`tooleval.analysis.stat_lines.compare_line`)."""
    return [
        {
            "metric": c.metric,
            "slice": c.slice,
            "delta": c.stats.delta,
            "interval": c.stats.interval.to_dict(),
            "verdict": c.verdict.to_dict(),
            "n": c.stats.n,
            "line": compare_line(c),
        }
        for c in statistics
    ]


def _scale(entries: Sequence[dict[str, Any]]) -> float:
    """The Δ axis half-width: the widest interval's end, rounded up to 5 points (at least 5)."""
    widest = max(
        [abs(e["interval"]["low"]) for e in entries]
        + [abs(e["interval"]["high"]) for e in entries]
        + [0.05]
    )
    return min(1.0, -(-round(widest * 1000) // 50) * 0.05)


def delta_bar(
    delta: float, interval: Interval, kind: str, *, scale: float, label: str = ""
) -> Safe:
    """An SVG of Δ on [−scale, +scale]: zero line, the interval as a band, Δ as a tick."""
    label = label or (
        f"Δ {pts(delta)} pts, interval {pts(interval.low)} to {pts(interval.high)} pts: {kind}"
    )

    def x(v: float) -> float:
        return (max(-scale, min(scale, v)) + scale) / (2 * scale) * _WIDTH

    low, high = x(interval.low), x(interval.high)
    return el(
        "svg",
        el("title", label),
        el("rect", x="0", y="6", width=str(_WIDTH), height="2", class_="ci-track"),
        el(
            "rect",
            x=f"{_WIDTH / 2 - 0.5:.1f}",
            y="0",
            width="1",
            height=str(_HEIGHT),
            class_="delta-zero",
        ),
        el(
            "rect",
            x=f"{low:.1f}",
            y="3",
            width=f"{max(1.0, high - low):.1f}",
            height="8",
            class_=f"delta-band delta-{kind}",
        ),
        el("rect", x=f"{x(delta) - 0.75:.1f}", y="1", width="1.5", height="12", class_="ci-tick"),
        xmlns="http://www.w3.org/2000/svg",
        viewBox=f"0 0 {_WIDTH} {_HEIGHT}",
        width=_WIDTH,
        height=_HEIGHT,
        role="img",
        aria_label=label,
        class_="delta-bar",
    )


def rate_cell(found: tuple[float, Any] | None) -> Safe:
    if found is None:
        return el("td", "–", class_="muted")
    rate, interval = found
    text = pct(rate)
    if interval is not None:
        text += f" [{100 * interval.low:.1f}, {100 * interval.high:.1f}]"
    return el("td", el("div", text, class_="num-text"), interval_bar(rate, interval), class_="ci")


def _interval(d: dict[str, Any]) -> Interval:
    return Interval(float(d["low"]), float(d["high"]), float(d["confidence"]), str(d["method"]))


def noise_section(
    rates_a: dict[tuple[str, str], tuple[float, Any]],
    rates_b: dict[tuple[str, str], tuple[float, Any]],
    found: Sequence[dict[str, Any]] | None,
    *,
    level: int = 2,
    unit: str = "dataset rows",
    too_small: Sequence[str] = (),
) -> Safe:
    """Pass rate of A and of B with intervals, the paired Δ with its interval and verdict.

    ``found`` None: the paired figures were not computed (runs too big to read on a view).
    ``unit``: the comparison's unit (:attr:`tooleval.analysis.compare.Comparison.unit`);
    ``too_small``: the comparison's sized inconclusive verdicts, as text.
    """
    entries = found or []
    scale = _scale(entries)
    paired = {(e["metric"], e["slice"]): e for e in entries}
    keys = list(dict.fromkeys([*rates_a, *rates_b, *paired]))
    metrics = list(dict.fromkeys(k[0] for k in keys))
    body = []
    for metric in metrics:
        slices = [k for k in keys if k[0] == metric]
        slices.sort(key=lambda k: (k[1] != ALL, k[1]))
        for key in slices:
            e = paired.get(key)
            name = (
                el("th", el("strong", metric), scope="row")
                if key[1] == ALL
                else el(
                    "th",
                    el("span", metric, class_="muted small"),
                    " · ",
                    key[1],
                    scope="row",
                    class_="slice",
                )
            )
            if e is None:
                why = "not paired" if found is not None else "not computed"
                delta: list[Safe] = [el("td", why, class_="muted"), el("td", "–")]
            else:
                interval, kind = _interval(e["interval"]), e["verdict"]["kind"]
                delta = [
                    el(
                        "td",
                        el(
                            "div",
                            f"Δ {pts(e['delta'])} pts [{pts(interval.low)}, {pts(interval.high)}]",
                            class_="num-text",
                        ),
                        delta_bar(e["delta"], interval, kind, scale=scale, label=e["line"]),
                        class_="ci",
                    ),
                    el(
                        "td",
                        el("span", e["verdict"]["label"], class_=f"verdict verdict-{kind}"),
                        el("div", f"n={e['n']} dataset rows", class_="muted small"),
                    ),
                ]
            body.append(
                el(
                    "tr",
                    name,
                    rate_cell(rates_a.get(key)),
                    rate_cell(rates_b.get(key)),
                    *delta,
                    class_="slice-row" if key[1] != ALL else None,
                )
            )
    head = el(
        "tr",
        *(
            el("th", h, scope="col")
            for h in (
                "metric · category",
                "A pass rate",
                "B pass rate",
                "paired Δ (B − A)",
                "verdict",
            )
        ),
    )
    confidence = entries[0]["interval"]["confidence"] if entries else 0.95
    return frag(
        el(f"h{level}", "Pass rates and the paired difference", id="intervals"),
        el(
            "p",
            f"Bars: {confidence:.0%} intervals. A run's rate is drawn on 0–100%; the paired "
            f"Δ on −{100 * scale:.0f} to +{100 * scale:.0f} points with 0 in the middle "
            "(red: regression, green: improvement, grey: inconclusive, with the minimum "
            "detectable effect). The verdicts are Holm-adjusted across every metric and "
            "category shown: an interval that excludes 0 stays inconclusive when the "
            "adjusted p does not confirm it, and the verdict says so; see "
            f"docs/statistics.md. Unit: {unit}.",
            class_="muted small",
        ),
        el("ul", [el("li", text) for text in too_small], class_="note too-small")
        if too_small
        else None,
        None
        if found is not None
        else el(
            "p",
            "The paired Δ reads every row of both runs; these are too big to read on a "
            "view, so it is not computed here: `tooleval compare A B` prints it.",
            class_="note",
        ),
        el(
            "div",
            el("table", el("thead", head), el("tbody", body), class_="intervals"),
            class_="table-scroll",
            tabindex="0",
            aria_label="pass rates and paired differences",
        ),
    )


def paired_section(store: StoreReader, found: Any, *, level: int = 2) -> Safe:
    """:func:`noise_section` of a stored comparison
    (:func:`tooleval.report.compare.comparison_page`): both runs' rates from their read
    models, and the comparison's own paired statistics, unit and sized inconclusives."""
    comparison = found.comparison
    return noise_section(
        run_rates(store, comparison.run_a),
        run_rates(store, comparison.run_b),
        found.statistics,
        level=level,
        unit=comparison.unit,
        too_small=found.too_small,
    )
