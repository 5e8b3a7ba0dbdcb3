"""Interval bars on the compare pages: each run's pass rates and the paired Δ with its verdict.

The two-run blocks (:func:`noise_section`, :func:`delta_bar`, :func:`run_rates`) are the
static compare report's too, in :mod:`tooleval.report.paired`, rendered from the
comparison's own statistics; the matrix of three or more runs adds each run's pass rate
per metric and category from its read model. Nothing is computed here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooleval.report.html import Safe, el, frag
from tooleval.report.paired import delta_bar, noise_section, rate_cell, run_rates

__all__ = [
    "delta_bar",
    "matrix_rates_section",
    "noise_section",
    "run_rates",
]

ALL = "(all)"


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
            *(rate_cell(r.get(k)) for r in rates),
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
