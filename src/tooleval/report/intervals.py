"""Interval bars: a rate's confidence interval drawn beside it (report and viewer).

>>> from tooleval.stats import wilson_interval
>>> bar = interval_bar(0.85, wilson_interval(17, 20))
>>> "<svg" in bar and "64.0" in bar and "94.8" in bar
True
"""

from __future__ import annotations

from tooleval.report.html import Safe, el
from tooleval.stats import Interval

__all__ = ["interval_bar"]

_WIDTH, _HEIGHT = 80, 12


def interval_bar(value: float | None, interval: Interval | None) -> Safe:
    """A small SVG: the [0, 1] track, the interval as a band, the rate as a tick."""
    if value is None or interval is None:
        return el("span", "–", class_="ci-none")
    label = (
        f"{value:.1%}, {interval.confidence:.0%} interval "
        f"{100 * interval.low:.1f}–{100 * interval.high:.1f}% ({interval.method})"
    )

    def x(v: float) -> str:
        return f"{max(0.0, min(1.0, v)) * _WIDTH:.1f}"

    width = f"{max(1.0, (interval.high - interval.low) * _WIDTH):.1f}"
    return el(
        "svg",
        el("title", label),
        el("rect", x="0", y="5", width=str(_WIDTH), height="2", class_="ci-track"),
        el("rect", x=x(interval.low), y="2", width=width, height="8", class_="ci-band"),
        el("rect", x=x(value), y="0", width="1.5", height=str(_HEIGHT), class_="ci-tick"),
        xmlns="http://www.w3.org/2000/svg",
        viewBox=f"0 0 {_WIDTH} {_HEIGHT}",
        width=_WIDTH,
        height=_HEIGHT,
        role="img",
        aria_label=label,
        class_="ci-bar",
    )
