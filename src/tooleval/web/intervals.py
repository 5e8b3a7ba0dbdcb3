"""Interval bars on the compare pages: each run's pass rates and the paired Δ with its verdict.

Nothing is computed here that :mod:`tooleval.analysis` does not already
compute: each run's pass rate per metric and per category, with its interval,
is the run's read model (:func:`tooleval.analysis.figures.run_figures`, as on
the run overview, so one rate shows one interval on every page), and the paired Δ of B
against A, its interval, MDE and verdict (regression / improvement /
inconclusive, Holm-adjusted across the metrics and categories) are
:func:`tooleval.analysis.noise.compare_stats`, worded by
:func:`tooleval.analysis.stat_lines.compare_line`. The paired figures read
every row of both runs, so for two stopped runs they are kept with B's
aggregates and read back on later views.

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

from tooleval.analysis.stat_lines import pts
from tooleval.report.components import pct
from tooleval.report.html import Safe, el, frag
from tooleval.report.intervals import interval_bar
from tooleval.stats import Interval
from tooleval.store import StoreReader
from tooleval.store.records import RunInfo

__all__ = [
    "PAIRED_VIEW_LIMIT",
    "delta_bar",
    "matrix_rates_section",
    "noise_section",
    "paired_stats",
    "run_rates",
]

_DOCUMENT = "viewer-paired/1/"
#: Paired figures are computed on a view for runs up to this many rows each (every row of
#: both runs is read: about 24 s for two 20,000-row runs on a loaded 2-core machine).
PAIRED_VIEW_LIMIT = 100_000
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


def paired_stats(store: StoreReader, a: RunInfo, b: RunInfo) -> list[dict[str, Any]] | None:
    """B against A per metric and category (``compare_stats``), kept for two stopped runs.

    None when not stored and either run has more than ``PAIRED_VIEW_LIMIT`` rows.

    Each entry: ``metric``, ``slice``, ``delta``, ``interval`` (low, high, confidence,
    method), ``verdict`` (kind, label, mde), ``n``, ``line`` (the one-line summary).
    """
    from tooleval.analysis.aggregates import FINISHED, stamp
    from tooleval.analysis.noise import compare_stats
    from tooleval.analysis.stat_lines import compare_line

    stamps = [stamp(a.status, a.finished_at), stamp(b.status, b.finished_at), a.row_count]
    stopped = a.status in FINISHED and b.status in FINISHED
    name = _DOCUMENT + a.id
    if stopped:
        payload = store.aggregates.load_aggregate(b.id, name, row_count=b.row_count)
        if isinstance(payload, dict) and payload.get("stamps") == stamps:
            entries = payload.get("entries")
            if isinstance(entries, list):
                return entries
    if max(a.row_count, b.row_count) > PAIRED_VIEW_LIMIT:
        return None
    entries = [
        {
            "metric": c.metric,
            "slice": c.slice,
            "delta": c.stats.delta,
            "interval": c.stats.interval.to_dict(),
            "verdict": c.verdict.to_dict(),
            "n": c.stats.n,
            "line": compare_line(c),
        }
        for c in compare_stats(store, a.id, b.id)
    ]
    if stopped:
        store.aggregates.save_aggregate(
            b.id, name, {"stamps": stamps, "entries": entries}, row_count=b.row_count
        )
    return entries


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


def _rate_cell(found: tuple[float, Any] | None) -> Safe:
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
) -> Safe:
    """Pass rate of A and of B with intervals, the paired Δ with its interval and verdict.

    ``found`` None: the paired figures were not computed (runs too big to read on a view).
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
                        el("div", f"n={e['n']} rows", class_="muted small"),
                    ),
                ]
            body.append(
                el(
                    "tr",
                    name,
                    _rate_cell(rates_a.get(key)),
                    _rate_cell(rates_b.get(key)),
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
            "category shown; see docs/statistics.md.",
            class_="muted small",
        ),
        None
        if found is not None
        else el(
            "p",
            f"The paired Δ reads every row of both runs; these have more than "
            f"{PAIRED_VIEW_LIMIT:,} rows, so it is not computed here: `tooleval compare A B` "
            "prints it.",
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


def matrix_rates_section(
    rates: Sequence[dict[tuple[str, str], tuple[float, Any]]],
    labels: Sequence[str],
) -> Safe:
    """Each run's pass rate per metric and category with its interval (runs oldest first)."""
    keys = list(dict.fromkeys(k for r in rates for k in r))
    order = list(dict.fromkeys(k[0] for k in keys))
    keys.sort(key=lambda k: (order.index(k[0]), k[1] != ALL, k[1]))
    head = el(
        "tr",
        el("th", "metric · category", scope="col"),
        *(el("th", label, scope="col", class_="run-col") for label in labels),
    )
    body = [
        el(
            "tr",
            el("th", el("strong", k[0]), scope="row")
            if k[1] == ALL
            else el(
                "th",
                el("span", k[0], class_="muted small"),
                " · ",
                k[1],
                scope="row",
                class_="slice",
            ),
            *(_rate_cell(r.get(k)) for r in rates),
        )
        for k in keys
    ]
    return frag(
        el("h2", "Pass rate per run", id="intervals"),
        el(
            "p",
            "Bars: 95% intervals of each run's pass rate (as on each run's overview). "
            "Compare two runs for the paired difference and its verdict.",
            class_="muted small",
        ),
        el(
            "div",
            el("table", el("thead", head), el("tbody", body), class_="intervals"),
            class_="table-scroll",
            tabindex="0",
            aria_label="pass rate per run",
        ),
    )
