"""The static report: one self-contained HTML file for a run (and a comparison).

No network, no script, CSS inlined, charts as inline SVG: the file opens from
disk and can be attached to a CI job. Numbers above the rows (histograms,
per-category rates, failure clusters) come from the run's stored aggregates;
rows are read only for the cards shown (at most ``max_rows``: failures first,
sampled in turn from every failure cluster's examples, then passes), so a
report of a million-row run reads a few hundred rows and its size is bounded
by ``max_rows`` whatever the run's size.

>>> from tooleval.store import open_store
>>> store = open_store("sqlite:///:memory:")
>>> run_id = store.create_run("demo", dataset={"path": "d.jsonl"}, connector={}, metrics=[])
>>> "<h1>demo</h1>" in build_report(store, run_id)
True
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tooleval.analysis.counts import ScoreBins
from tooleval.analysis.figures import RunFigures, SliceFigures, run_figures
from tooleval.errors import InputError
from tooleval.report.charts import bar_chart_svg, histogram_svg
from tooleval.report.compare import CHANGE_LABELS, comparison_overview, delta_rows_table
from tooleval.report.components import pct, row_card
from tooleval.report.html import Safe, el, frag, href
from tooleval.report.intervals import interval_bar
from tooleval.report.page import chip_legend, document
from tooleval.report.run_tables import (
    clusters_table,
    metric_summary_table,
    run_header,
    run_status,
)
from tooleval.report.state_diff import state_diff_section, state_diffs
from tooleval.store import StoreReader
from tooleval.store.records import RunInfo

__all__ = [
    "build_report",
    "category_section",
    "charts_caption",
    "charts_section",
    "write_report",
]

DEFAULT_MAX_ROWS = 200
_DELTA_ROWS = 100


def charts_caption(b: ScoreBins) -> str:
    """What a histogram counts, in words (its caption and the image's alt text)."""
    caption = f"{sum(b.counts)} scored"
    if b.threshold is not None:
        caption += f", threshold {b.threshold:g}"
    if b.unscored:
        caption += f", {b.unscored} unscored (not drawn)"
    return caption


def charts_section(bins: list[ScoreBins]) -> Safe:
    """One histogram per metric, threshold marked, unscored rows noted."""
    boxes = [
        el(
            "figure",
            histogram_svg(counts=b.counts, threshold=b.threshold, title=b.metric),
            el("figcaption", charts_caption(b), class_="caption"),
            class_="chart-box",
        )
        for b in bins
    ]
    return el("div", boxes, class_="charts")


def _rate_cell(f: SliceFigures | None, *, bar: bool = True) -> Safe:
    """One pass rate from the read model, with its interval bar."""
    if f is None or f.pass_rate is None:
        return el("td", "–", class_="num")
    e = f.pass_rate
    return el(
        "td",
        el("div", pct(e.value)),
        interval_bar(e.value, e.interval) if bar else None,
        class_="num ci",
    )


def category_section(figures: RunFigures, *, link: Any = None) -> Safe:
    """Per-category table and pass-rate bars from the run's read model.

    The row verdict (every scored metric passed) and each metric's pass rate per
    category, error rows counted as not passed, with their intervals (docs/statistics.md).
    """
    from tooleval.analysis.figures import VERDICT

    shown = [c for c in figures.categories if c != "(none)"]
    verdicts = [(c, f) for c in shown if (f := figures.get(VERDICT, c)) is not None]
    if not verdicts:
        return el("p", "No row has a category.", class_="muted")
    unit = "attempts" if figures.k > 1 else "rows"
    head = el(
        "tr",
        el("th", "category"),
        *(
            el("th", h, class_="num")
            for h in (unit, "passed", "failed", "errors", "unscored", "pass rate")
        ),
        *(el("th", f"{m} pass", class_="num") for m in figures.metrics),
    )
    body = []
    for category, s in verdicts:
        target = link(category) if link else None
        body.append(
            el(
                "tr",
                el("td", el("a", category, href=target) if target else category, class_="cat"),
                el("td", s.counted + s.unscored, class_="num"),
                el("td", s.passed, class_="num"),
                el("td", s.failed, class_="num"),
                el("td", s.errors, class_="num"),
                el("td", s.unscored, class_="num"),
                _rate_cell(s),
                *(_rate_cell(figures.get(m, category)) for m in figures.metrics),
            )
        )
    chart = bar_chart_svg(
        [(c, s.rate, f"({s.passed}/{s.counted})") for c, s in verdicts],
        title="pass rate per category",
    )
    return frag(
        el("table", el("thead", head), el("tbody", body), class_="categories"),
        el("div", el("div", chart, class_="chart-box"), class_="charts"),
    )


@dataclass
class _Cards:
    """The row cards a report shows (failures first) and how to link to them."""

    rows: list[Any]
    failing: int
    first: dict[str, int] = field(default_factory=dict)

    @property
    def shown(self) -> set[int]:
        return {row.index for row in self.rows}

    def anchor(self, index: int | None) -> Any:
        return href("#", fragment=f"row-{index}") if index in self.shown else None

    def of_row(self, row_id: str) -> str:
        """The first card of a row id (a repeated run shows a row once per attempt)."""
        index = self.first.get(row_id)
        return href("#", fragment=f"row-{index}") if index is not None else ""


def _attempt_anchor(run: RunInfo, cards: _Cards) -> Any:
    """An attempt's card in the report, when it is one of the cards shown."""
    from tooleval.analysis.repeats import repeat_of

    found = repeat_of(run)
    if found is None:
        return None
    stride = found[1]
    return lambda first, attempt: cards.anchor(first + (attempt - 1) * stride) or ""


def sampled_failures(clusters: list[Any], max_rows: int) -> list[int]:
    """Up to ``max_rows`` failing row indexes, taken in turn from each cluster's examples.

    Largest cluster first: the first example of every cluster, then the second
    of every cluster, and so on, so each probable bug of a million-row run has
    a card (linked from its cluster) however many rows the biggest one holds.

    >>> from types import SimpleNamespace as C
    >>> sampled_failures([C(indexes=(1, 2, 3)), C(indexes=(7,)), C(indexes=(9, 1))], 5)
    [1, 7, 9, 2, 3]
    """
    chosen: dict[int, None] = {}
    depth = max((len(c.indexes) for c in clusters), default=0)
    for place in range(depth):
        for cluster in clusters:
            if len(chosen) >= max_rows:
                return list(chosen)
            if place < len(cluster.indexes):
                chosen.setdefault(cluster.indexes[place])
    return list(chosen)


def _cards(store: StoreReader, run: RunInfo, max_rows: int, clusters: list[Any]) -> _Cards:
    # Sampled across the failure clusters first, then the first failing rows.
    fail_cards = [store.get_row(run.id, i) for i in sampled_failures(clusters, max_rows)]
    if len(fail_cards) < max_rows:
        taken = {row.index for row in fail_cards}
        for row in store.aggregates.iter_unpassed_rows(run.id, limit=max_rows):
            if len(fail_cards) >= max_rows:
                break
            if row.index not in taken:
                fail_cards.append(row)
    fail_cards.sort(key=lambda row: row.index)
    pass_cards = (
        list(store.iter_rows(run.id, passed=True, limit=max_rows - len(fail_cards)))
        if len(fail_cards) < max_rows
        else []
    )
    cards = _Cards(fail_cards + pass_cards, len(fail_cards))
    for row in cards.rows:
        if row.row_id not in cards.first or row.index < cards.first[row.row_id]:
            cards.first[row.row_id] = row.index
    return cards


@dataclass
class _Baseline:
    """The comparison with a baseline run: counts and the first deltas of each kind."""

    comparison: Any
    pages: dict[str, Any]
    changes: dict[str, list[str]]
    paired: Safe | None = None  # the viewer's pass rates, paired Δ, intervals and verdicts


def _baseline(store: StoreReader, run: RunInfo, compare_with: str) -> _Baseline:
    from tooleval.report.compare import comparison_page

    baseline = store.resolve_run_id(compare_with)
    if baseline == run.id:
        raise InputError("compare a run with another run, not with itself", field="--compare")
    # score_down: still passing (or still failing) but the score dropped, worth a look.
    pages = {
        change: comparison_page(store, baseline, run.id, change=change, limit=_DELTA_ROWS)
        for change in ("regressed", "fixed", "score_down")
    }
    changes: dict[str, list[str]] = {}
    for found in pages.values():
        for d in found.deltas:
            changes.setdefault(d.row_id, []).append(f"{d.metric} {CHANGE_LABELS[d.change]}")
    from tooleval.report.paired import paired_section

    paired = paired_section(store, pages["regressed"], level=3)
    return _Baseline(pages["regressed"].comparison, pages, changes, paired)


def _comparison_sections(found: _Baseline, cards: _Cards) -> list[Safe | None]:
    titles = {
        "regressed": "Regressed",
        "fixed": "Fixed",
        "score_down": "Score down, same verdict",
    }
    sections: list[Safe | None] = [
        el("h2", "Comparison with the baseline"),
        comparison_overview(found.comparison, run_link=lambda _id: None, level=3),
        found.paired,
    ]
    for change, title in titles.items():
        listed = found.pages[change]
        sections += [
            el("h3", f"{title} ({listed.total})"),
            delta_rows_table(listed.deltas, row_link=lambda d: cards.anchor(d.index_b)),
        ]
    if max(p.total for p in found.pages.values()) > _DELTA_ROWS:
        sections.append(
            el(
                "p",
                f"Only the first {_DELTA_ROWS} of each are listed (and tagged on the cards); "
                "`tooleval view` lists them all.",
                class_="muted",
            )
        )
    return sections


def _row_sections(
    run: RunInfo, cards: _Cards, failures: int, changes: dict[str, list[str]]
) -> list[Safe | None]:
    total = run.row_count
    left_out = total - len(cards.rows)
    note = None
    if left_out:
        note = el(
            "p",
            f"{len(cards.rows)} of {total} rows shown, failures first (examples of every "
            f"failure cluster in turn, each linked from its cluster); {left_out} left out "
            f"({failures - cards.failing} of them failing). Raise --max-rows or open the run "
            "in `tooleval view` to see every row.",
            class_="note",
        )
    return [
        el("h2", "Rows"),
        note,
        chip_legend(),
        frag(
            frag(
                row_card(
                    row,
                    anchor=f"row-{row.index}",
                    extra_header=frag(
                        el("span", c, class_="tag") for c in changes.get(row.row_id, ())
                    )
                    if row.row_id in changes
                    else None,
                ),
                # The environment's end state against the expected one, as the viewer shows it.
                *(state_diff_section(r, level=3) for r in state_diffs(row.results)),
            )
            for row in cards.rows
        ),
        el(
            "p",
            f"Generated by tooleval from run {run.id}; overall pass rate over every "
            f"row × metric: {pct(_rate(run))}.",
            class_="muted small",
        ),
    ]


def build_report(
    store: StoreReader,
    run_id: str,
    *,
    compare_with: str | None = None,
    max_rows: int = DEFAULT_MAX_ROWS,
    calibrations: Mapping[str, str | None] | None = None,
) -> str:
    """The report as HTML text; ``compare_with`` is the baseline run (A) for a comparison.

    ``calibrations`` (:func:`tooleval.calibration.gate_calibrations`) shows each judged
    metric's rate corrected for its judge's measured error, and lets the gate check it.

    Histograms, per-category numbers and failure clusters come from the run's
    stored aggregates (:mod:`tooleval.analysis.aggregates`, computed and stored on
    first use for a stopped run); rows are read only for the cards shown.
    The gate the run's plan set is checked and its verdict shown first.
    """
    from tooleval.analysis.aggregates import cached_run, run_clusters, run_counts, run_repeats
    from tooleval.analysis.gate import stored_gate
    from tooleval.report.judged_rates import judged_rates_block
    from tooleval.report.overview import gate_block, latency_percentiles
    from tooleval.report.repeats import repeat_section

    if not isinstance(max_rows, int) or isinstance(max_rows, bool) or max_rows < 0:
        raise InputError(
            f"max_rows must be a whole number >= 0, got {max_rows!r}", field="max_rows"
        )
    run: RunInfo = cached_run(store, run_id)
    counts = run_counts(store, run)
    figures = run_figures(store, run)
    clusters, failures = run_clusters(store, run)
    cards = _cards(store, run, max_rows, clusters)
    digest = run_repeats(store, run)
    found = _baseline(store, run, compare_with) if compare_with is not None else None
    gate = stored_gate(run, store=store, calibrations=calibrations)
    sections: list[Safe | None] = [
        run_header(run, run_status(store, run), latency=latency_percentiles(store, run), gate=gate),
        gate_block(gate),
        el("h2", "Metrics"),
        metric_summary_table(run, figures),
        judged_rates_block(calibrations),
        charts_section(counts.bins),
        None
        if digest is None
        else repeat_section(digest, link=cards.of_row, attempt_link=_attempt_anchor(run, cards)),
        el("h2", "Per category"),
        category_section(figures),
        el("h2", "Failure clusters"),
        clusters_table(
            clusters, failures=failures, row_link=lambda _row_id, index: cards.anchor(index)
        ),
    ]
    if found is not None:
        sections += _comparison_sections(found, cards)
    sections += _row_sections(run, cards, failures, found.changes if found else {})
    return str(document(f"tooleval report: {run.name}", *sections, inline_css=True))


def _rate(run: RunInfo) -> float | None:
    scored = sum(s.scored for s in run.summaries.values())
    passed = sum(s.passed for s in run.summaries.values())
    return passed / scored if scored else None


def write_report(
    store: StoreReader,
    run_id: str,
    path: str | os.PathLike[str],
    *,
    compare_with: str | None = None,
    max_rows: int = DEFAULT_MAX_ROWS,
    calibrations: Mapping[str, str | None] | None = None,
) -> Path:
    """Write :func:`build_report` to ``path`` (UTF-8) and return the path."""
    text = build_report(
        store, run_id, compare_with=compare_with, max_rows=max_rows, calibrations=calibrations
    )
    target = Path(path)
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(
            f"cannot write the report: {exc.strerror}; pass -o with a writable path",
            path=str(target),
        ) from None
    return target
