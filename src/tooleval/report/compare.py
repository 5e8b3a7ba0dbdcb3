"""Comparison blocks (run A = baseline, run B = new), shared by report and viewer.

>>> from tooleval.analysis.compare import DeltaCounts
>>> category_deltas({"refund": {"m": DeltaCounts(fixed=2, regressed=1)}})
[('refund', 2, 1)]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tooleval.analysis.compare import CHANGES
from tooleval.report.charts import delta_chart_svg
from tooleval.report.components import pct, score_text, value_text
from tooleval.report.html import Href, Safe, el, frag

__all__ = [
    "CHANGE_LABELS",
    "category_deltas",
    "change_cell",
    "comparison_overview",
    "delta_rows_table",
]

DeltaLink = Callable[[Any], Href | None]

#: How each change kind reads on a page (the kind itself stays in the CSS class
#: and the ``change=`` filter). ``score_down`` / ``score_up``: the verdict did not
#: change (a row that still passes, or still fails) but the score moved.
CHANGE_LABELS = {
    "fixed": "fixed",
    "regressed": "regressed",
    "score_down": "score down (same verdict)",
    "score_up": "score up (same verdict)",
    "unchanged": "unchanged",
    "new": "new in B",
    "missing": "missing in B",
    "unscored": "unscored",
}


def change_cell(change: str) -> Safe:
    """A table cell naming a row's change kind.

    >>> str(change_cell("score_down"))
    '<td class="change change-score_down">score down (same verdict)</td>'
    """
    return el("td", CHANGE_LABELS.get(change, change), class_=f"change change-{change}")


def category_deltas(categories: Mapping[str, Mapping[str, Any]]) -> list[tuple[str, int, int]]:
    """Per category: (name, fixed, regressed) summed over metrics."""
    return [
        (name, sum(c.fixed for c in per.values()), sum(c.regressed for c in per.values()))
        for name, per in categories.items()
    ]


def _differences(comparison: Any, level: int = 3) -> Safe:
    if not comparison.differences:
        return el("p", "Same dataset, connector and metric parameters.", class_="ok")
    body = [
        el(
            "tr",
            el("td", el("code", d.path)),
            el("td", el("code", value_text(d.a, limit=160))),
            el("td", el("code", value_text(d.b, limit=160))),
        )
        for d in comparison.differences
    ]
    parts = {d.path.split(".")[0] for d in comparison.differences}
    warning = (
        el("p", "More than one part changed: the row deltas mix their effects.", class_="note")
        if len(parts) > 1
        else None
    )
    head = el("tr", el("th", "setting"), el("th", "A"), el("th", "B"))
    return frag(
        el(f"h{level}", "Configuration differences"),
        warning,
        el("table", el("thead", head), el("tbody", body), class_="diffs"),
    )


def _metric_table(comparison: Any) -> Safe:
    head = el(
        "tr",
        el("th", "metric"),
        el("th", "pass rate A → B", class_="num"),
        el("th", "mean score A → B", class_="num"),
        *(el("th", CHANGE_LABELS.get(change, change), class_="num") for change in CHANGES),
    )
    body = []
    for metric, c in comparison.metrics.items():
        body.append(
            el(
                "tr",
                el("td", el("strong", metric)),
                el("td", f"{pct(c.pass_rate_a)} → {pct(c.pass_rate_b)}", class_="num"),
                el(
                    "td",
                    f"{score_text(c.mean_score_a)} → {score_text(c.mean_score_b)}",
                    class_="num",
                ),
                *(
                    el(
                        "td",
                        getattr(c, change, 0),
                        class_=f"num change-{change}" if getattr(c, change, 0) else "num",
                    )
                    for change in CHANGES
                ),
            )
        )
    return el("table", el("thead", head), el("tbody", body), class_="summary")


def comparison_overview(
    comparison: Any, *, run_link: Callable[[str], Href | None], level: int = 3
) -> Safe:
    """Both runs, configuration differences, per-metric deltas, fixed vs regressed chart.

    ``level`` is the heading level of its sections.
    """
    a, b = comparison.run_a, comparison.run_b

    def side(label: str, run: Any) -> Safe:
        target = run_link(run.id)
        name = el("a", run.name, href=target) if target else el("strong", run.name)
        return el(
            "li",
            el("strong", f"{label} "),
            name,
            " ",
            el("code", run.id),
            el("span", f" · {run.row_count} rows · {run.created_at[:19].replace('T', ' ')}"),
        )

    chart_items = category_deltas(comparison.categories)
    chart = (
        el(
            "div",
            delta_chart_svg(chart_items, title="fixed vs regressed per category"),
            el("div", "row × metric pairs whose verdict changed from A to B", class_="caption"),
            class_="chart-box",
        )
        if chart_items
        else None
    )
    return frag(
        el("ul", side("A (baseline)", a), side("B (new)", b), class_="runs-compared"),
        _differences(comparison, level),
        el(f"h{level}", "Per metric"),
        _metric_table(comparison),
        el("div", chart, class_="charts") if chart else None,
    )


def delta_rows_table(deltas: Sequence[Any], *, row_link: DeltaLink) -> Safe:
    """Row × metric deltas: row, category, metric, change, score A → B."""
    if not deltas:
        return el("p", "No rows.", class_="muted")
    head = el(
        "tr",
        *(
            el("th", h, class_=c)
            for h, c in (
                ("row", None),
                ("category", None),
                ("metric", None),
                ("change", None),
                ("score A", "num"),
                ("score B", "num"),
                ("delta", "num"),
            )
        ),
    )
    body = []
    for d in deltas:
        target = row_link(d)
        delta = d.score_delta
        body.append(
            el(
                "tr",
                el("td", el("a", d.row_id, href=target) if target else d.row_id, class_="rowid"),
                el("td", d.category or "", class_="cat"),
                el("td", d.metric),
                change_cell(d.change),
                el("td", score_text(d.score_a), class_="num"),
                el("td", score_text(d.score_b), class_="num"),
                el("td", "–" if delta is None else f"{delta:+.2f}", class_="num"),
            )
        )
    return el("table", el("thead", head), el("tbody", body), class_="deltas")
