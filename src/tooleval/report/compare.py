"""Comparing two runs, for the report and the viewer: stored comparisons and their blocks.

:func:`tooleval.analysis.compare.compare_runs` decides every row's change; it is
fed *lean* rows here (row id, index, category and each result's score and
verdict, read by :func:`tooleval.store.aggregates.verdict_rows` without
decoding any sample or diagnosis JSON), which is what makes two big runs
comparable in seconds.

When both runs have stopped, the comparison is saved on run B: one document
with the counts per metric and category, the unit, the paired statistics (Δ,
interval, verdict per metric and category, :attr:`Comparison.statistics`, for runs
up to ``PAIRED_VIEW_LIMIT`` rows) and the size of each (change, metric) group, and
the row deltas of each group in chunks of ``CHUNK`` (``unchanged`` ones are
counted, not listed). A page of deltas then reads the counts and one or two
chunks, however many rows changed; the viewer's compare page and the static
report render the same document.

The blocks (run A = baseline, run B = new) are the same in the static report
and the viewer: the overview, and one delta table (the viewer adds each
side's calls through ``calls``).

>>> from tooleval.store import open_store
>>> store = open_store("sqlite:///:memory:")
>>> a = store.create_run("a", dataset={}, connector={}, metrics=[])
>>> b = store.create_run("b", dataset={}, connector={}, metrics=[])
>>> comparison_page(store, a, b).total
0
>>> from tooleval.analysis.compare import DeltaCounts
>>> category_deltas({"refund": {"m": DeltaCounts(fixed=2, regressed=1)}})
[('refund', 2, 1)]
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from tooleval.analysis.aggregates import FINISHED, cached_run, stamp
from tooleval.analysis.compare import CHANGES
from tooleval.model import Result, Sample
from tooleval.report.charts import delta_chart_svg
from tooleval.report.components import pct, score_text, value_text
from tooleval.report.html import Href, Safe, el, frag
from tooleval.store import StoreReader
from tooleval.store.records import RowRecord, RunInfo

__all__ = [
    "CHANGE_LABELS",
    "CHUNK",
    "ComparisonPage",
    "PAIRED_VIEW_LIMIT",
    "category_deltas",
    "change_cell",
    "comparison_overview",
    "comparison_page",
    "delta_rows_table",
    "lean_rows",
]

CHUNK = 1000
#: The paired statistics are computed with a comparison for runs up to this many rows each
#: (every row of both runs is read: about 24 s for two 20,000-row runs on a loaded 2-core
#: machine); bigger runs say so and point to ``tooleval compare``.
PAIRED_VIEW_LIMIT = 100_000
# Listed changes, the ones anyone compares for first: every kind but ``unchanged``.
LISTED = ("regressed", "fixed") + tuple(
    c for c in CHANGES if c not in ("regressed", "fixed", "unchanged")
)
_NAME = "compare/3/"


def lean_rows(store: StoreReader, run: RunInfo) -> Iterator[RowRecord]:
    """The run's rows with only what a comparison reads (no messages, no diagnoses)."""
    thresholds = {m.name: m.threshold for m in run.metrics}
    current: tuple[int, str, str | None, str | None] | None = None
    results: list[Result] = []
    for index, row_id, category, metric, score, passed, error in store.aggregates.verdict_rows(
        run.id
    ):
        if current is None or current[0] != index:
            if current is not None:
                yield _lean(run.id, current, results)
            current, results = (index, row_id, category, error), []
        if metric is not None:
            results.append(Result(metric, score, passed, "", threshold=thresholds.get(metric)))
    if current is not None:
        yield _lean(run.id, current, results)


def _lean(
    run_id: str, key: tuple[int, str, str | None, str | None], results: list[Result]
) -> RowRecord:
    index, row_id, category, error = key
    return RowRecord(run_id, index, row_id, Sample(category=category), tuple(results), error=error)


class _LeanStore:
    """The two read calls ``compare_runs`` makes, answered with lean rows."""

    def __init__(self, store: StoreReader, runs: dict[str, RunInfo]) -> None:
        self._store = store
        self._runs = runs

    def get_run(self, run_id: str) -> RunInfo:
        return self._runs[run_id]

    def iter_rows(self, run_id: str) -> Iterator[RowRecord]:
        return lean_rows(self._store, self._runs[run_id])


@dataclasses.dataclass(frozen=True)
class ComparisonPage:
    """A comparison's counts (``comparison.rows`` empty) and one page of its row deltas.

    ``statistics``: the comparison's paired statistics as
    :func:`tooleval.report.paired.statistics_entries` (None: the runs are too big to
    read on a view); ``too_small``: its sized inconclusive verdicts, as text.
    """

    comparison: Any
    deltas: list[Any]
    total: int
    statistics: list[dict[str, Any]] | None = None
    too_small: list[str] = dataclasses.field(default_factory=list)


def _plain(value: Any) -> dict[str, Any]:
    return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}


def _groups(comparison: Any) -> dict[tuple[str, str], list[Any]]:
    groups: dict[tuple[str, str], list[Any]] = {}
    for delta in comparison.rows:
        if delta.change in LISTED:
            groups.setdefault((delta.change, delta.metric), []).append(delta)
    return groups


def _statistics(comparison: Any, paired: bool) -> tuple[list[dict[str, Any]] | None, list[str]]:
    from tooleval.report.paired import statistics_entries

    if not paired:
        return None, []
    return statistics_entries(comparison.statistics), [t.text for t in comparison.too_small]


def _save(
    store: StoreReader,
    info_a: RunInfo,
    info_b: RunInfo,
    comparison: Any,
    stamps: list[str],
    paired: bool,
) -> None:
    metrics = list(comparison.metrics)
    groups = _groups(comparison)
    statistics, too_small = _statistics(comparison, paired)
    head = {
        "rows_a": info_a.row_count,
        "stamps": stamps,
        "attempts": list(comparison.attempts),
        "statistics": statistics,
        "too_small": too_small,
        "metrics": {m: _plain(c) for m, c in comparison.metrics.items()},
        "categories": {
            cat: {m: _plain(c) for m, c in per.items()}
            for cat, per in comparison.categories.items()
        },
        "groups": [[change, metric, len(items)] for (change, metric), items in groups.items()],
    }
    prefix = _NAME + info_a.id
    documents: dict[str, Any] = {prefix: head}
    for (change, metric), items in groups.items():
        for k in range(0, len(items), CHUNK):
            name = f"{prefix}/{change}/{metrics.index(metric)}/{k // CHUNK}"
            documents[name] = [_plain(d) for d in items[k : k + CHUNK]]
    store.aggregates.delete_aggregates(info_b.id, prefix=prefix)
    store.aggregates.save_aggregates(info_b.id, documents, row_count=info_b.row_count)


def _counts(payload: dict[str, Any], info_a: RunInfo, info_b: RunInfo) -> Any:
    from tooleval.analysis.compare import Comparison, DeltaCounts, config_differences

    return Comparison(
        run_a=info_a,
        run_b=info_b,
        differences=tuple(config_differences(info_a, info_b)),
        metrics={m: DeltaCounts(**c) for m, c in payload["metrics"].items()},
        categories={
            cat: {m: DeltaCounts(**c) for m, c in per.items()}
            for cat, per in payload["categories"].items()
        },
        attempts=(int(payload["attempts"][0]), int(payload["attempts"][1])),
    )


def _wanted(
    groups: list[tuple[str, str, int]], change: str | None, metric: str | None
) -> list[tuple[str, str, int]]:
    order = [change] if change else list(LISTED)
    return [
        (c, m, n)
        for c in order
        for (gc, m, n) in groups
        if gc == c and (metric is None or m == metric)
    ]


def _stored_page(
    store: StoreReader,
    info_a: RunInfo,
    info_b: RunInfo,
    payload: dict[str, Any],
    change: str | None,
    metric: str | None,
    offset: int,
    limit: int,
) -> ComparisonPage:
    from tooleval.analysis.compare import RowDelta

    comparison = _counts(payload, info_a, info_b)
    metrics = list(comparison.metrics)
    groups = _wanted([tuple(g) for g in payload["groups"]], change, metric)
    total = sum(n for _, _, n in groups)
    deltas: list[Any] = []
    start = offset
    for group_change, group_metric, count in groups:
        if len(deltas) >= limit:
            break
        if start >= count:
            start -= count
            continue
        while start < count and len(deltas) < limit:
            k = start // CHUNK
            name = f"{_NAME}{info_a.id}/{group_change}/{metrics.index(group_metric)}/{k}"
            chunk = (
                store.aggregates.load_aggregate(info_b.id, name, row_count=info_b.row_count) or []
            )
            taken = chunk[start - k * CHUNK : start - k * CHUNK + limit - len(deltas)]
            if not taken:
                break
            deltas.extend(RowDelta(**d) for d in taken)
            start += len(taken)
        start = 0
    statistics = payload["statistics"]
    return ComparisonPage(comparison, deltas, total, statistics, list(payload["too_small"]))


def comparison_page(
    store: StoreReader,
    run_a: str,
    run_b: str,
    *,
    change: str | None = None,
    metric: str | None = None,
    offset: int = 0,
    limit: int = 50,
    refresh: bool = False,
) -> ComparisonPage:
    """Run B against baseline A: the counts, and deltas ``offset..offset+limit`` of a filter.

    ``change=None`` lists regressed, then fixed, new, missing and unscored
    deltas (each group in row order); ``unchanged`` pairs are counted in the
    comparison but listed only while it is computed fresh (a run still going).
    """
    from tooleval.analysis.compare import compare_runs
    from tooleval.analysis.figures import run_figures

    info_a, info_b = cached_run(store, run_a), cached_run(store, run_b)
    stamps = [stamp(info_a.status, info_a.finished_at), stamp(info_b.status, info_b.finished_at)]
    stopped = info_a.status in FINISHED and info_b.status in FINISHED
    if stopped and not refresh:
        payload = store.aggregates.load_aggregate(
            info_b.id, _NAME + info_a.id, row_count=info_b.row_count
        )
        if (
            payload is not None
            and payload.get("rows_a") == info_a.row_count
            and payload.get("stamps") == stamps
        ):
            try:
                return _stored_page(store, info_a, info_b, payload, change, metric, offset, limit)
            except (KeyError, TypeError, ValueError):
                pass  # written by another version: compare again
    lean = _LeanStore(store, {info_a.id: info_a, info_b.id: info_b})
    sides = (run_figures(store, info_a), run_figures(store, info_b))
    paired = max(info_a.row_count, info_b.row_count) <= PAIRED_VIEW_LIMIT
    comparison = compare_runs(
        lean, info_a.id, info_b.id, figures=sides, statistics={} if paired else None
    )
    if stopped:
        _save(store, info_a, info_b, comparison, stamps, paired)
    order = [change] if change else list(LISTED)
    groups = _groups(comparison) if change != "unchanged" else {}
    if change == "unchanged" and not stopped:
        chosen = [d for d in comparison.rows if d.change == "unchanged"]
    else:
        chosen = [
            d
            for c in order
            for (gc, m), items in groups.items()
            if gc == c and (metric is None or m == metric)
            for d in items
        ]
    if metric is not None:
        chosen = [d for d in chosen if d.metric == metric]
    counts = dataclasses.replace(comparison, rows=())
    statistics, too_small = _statistics(comparison, paired)
    return ComparisonPage(
        counts, chosen[offset : offset + limit], len(chosen), statistics, too_small
    )


# ---------------------------------------------------------------- blocks

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
        el(
            "div",
            el("table", el("thead", head), el("tbody", body), class_="diffs"),
            class_="table-scroll",
            tabindex="0",
        ),
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
    return el(
        "div",
        el("table", el("thead", head), el("tbody", body), class_="summary"),
        class_="table-scroll",
        tabindex="0",
    )


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
            el(
                "div",
                "dataset rows whose pass rate changed from A to B, summed over metrics",
                class_="caption",
            ),
            class_="chart-box",
        )
        if chart_items
        else None
    )
    return frag(
        el("ul", side("A (baseline)", a), side("B (new)", b), class_="runs-compared"),
        _differences(comparison, level),
        el(f"h{level}", "Per metric"),
        el("p", f"Counts in {comparison.unit}.", class_="muted small unit"),
        _metric_table(comparison),
        el("div", chart, class_="charts") if chart else None,
    )


def delta_rows_table(
    deltas: Sequence[Any],
    *,
    row_link: DeltaLink,
    calls: Callable[[Any], tuple[Safe, Safe]] | None = None,
    empty: str = "No rows.",
) -> Safe:
    """Row × metric deltas: row, category, metric, change, score A, score B, delta.

    ``calls`` adds each side's calls (two cells) per delta: the viewer's
    compare page passes it, the static report does not.
    """
    if not deltas:
        return el("p", empty, class_="muted")
    columns = [
        ("row", None),
        ("category", None),
        ("metric", None),
        ("change", None),
        ("score A", "num"),
        ("score B", "num"),
        ("delta", "num"),
    ]
    repeated = any(d.attempts_a > 1 or d.attempts_b > 1 for d in deltas)
    if repeated:
        columns.append(("passed attempts A → B", "num"))
    if calls is not None:
        columns += [("calls in A", None), ("calls in B", None)]
    head = el("tr", *(el("th", h, class_=c) for h, c in columns))
    body = []
    for d in deltas:
        target = row_link(d)
        delta = d.score_delta
        cells = [
            el("td", el("a", d.row_id, href=target) if target else d.row_id, class_="rowid"),
            el("td", d.category or "", class_="cat"),
            el("td", d.metric),
            change_cell(d.change),
            el("td", score_text(d.score_a), class_="num"),
            el("td", score_text(d.score_b), class_="num"),
            el("td", "–" if delta is None else f"{delta:+.2f}", class_="num"),
        ]
        if repeated:
            cells.append(
                el("td", f"{d.passes_a}/{d.attempts_a} → {d.passes_b}/{d.attempts_b}", class_="num")
            )
        if calls is not None:
            cell_a, cell_b = calls(d)
            cells += [el("td", cell_a), el("td", cell_b)]
        body.append(el("tr", cells))
    return el(
        "div",
        el("table", el("thead", head), el("tbody", body), class_="deltas"),
        class_="table-scroll",
        tabindex="0",
    )
