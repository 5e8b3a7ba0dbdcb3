"""The viewer's row page: one row in full, with its neighbours in the view it was opened from.

The view (filters, sort, page size) travels in the row's link with the row's
position in it, so "next row" walks the same filtered rows and "back to the
rows" leads to the page that holds this row.
"""

from __future__ import annotations

from tooleval.report.components import row_card
from tooleval.report.html import Safe, el, frag, href
from tooleval.report.page import chip_legend
from tooleval.report.state_diff import state_diff_section, state_diffs
from tooleval.store.records import RowRecord, RunInfo
from tooleval.web.pages import RunFilters, breadcrumb, count_text, page

__all__ = ["row_page"]


def row_page(
    run: RunInfo,
    row: RowRecord,
    *,
    filters: RunFilters,
    position: int | None,
    previous: tuple[int, int] | None,
    following: tuple[int, int] | None,
    total: int | None = None,
    attempts: tuple[int, list[int]] | None = None,
    labels: Safe | None = None,
    more: bool = False,
) -> str:
    """One row in full: the shared row card, with its neighbours in the same view.

    ``more``: the view keeps more than ``total`` rows ("row 3 of 1,000+").

    ``attempts`` (a repeated run): this row's attempt number and the index of
    every attempt of its dataset row, linked from "attempt 2 of 3".

    ``previous`` / ``following`` are ``(row index, position)`` in the filtered
    list; ``position`` is this row's (None outside a filtered view).
    """
    if position is not None:
        back = filters.link(
            run.id, page=position // filters.per_page + 1, fragment=f"row-{row.index}"
        )
    else:
        back = href(
            "/runs",
            run.id,
            sort="index",
            page=row.index // 50 + 1 if row.index >= 50 else None,
            fragment=f"row-{row.index}",
        )

    def neighbour(label: str, target: tuple[int, int] | None, rel: str) -> Safe:
        if target is None:
            return el("span", label, class_="disabled")
        index, pos = target
        return el("a", label, href=filters.row_link(run.id, index, pos), rel=rel, id=f"row-{rel}")

    where = (
        f"row {position + 1} of {count_text(total, more)} in this view"
        if position is not None and total is not None
        else f"row {row.index + 1} of {run.row_count}"
    )
    nav = el(
        "nav",
        neighbour("‹ previous row", previous, "prev"),
        neighbour("next row ›", following, "next"),
        el("a", "back to the rows", href=back, id="row-up"),
        el("span", where, class_="muted"),
        class_="pager",
        aria_label="rows",
    )
    return page(
        f"{row.row_id} · {run.name} · tooleval",
        breadcrumb(("Runs", href("/")), (run.name, back), (row.row_id, None)),
        el("h1", f"Row {row.row_id}", class_="row-title"),
        nav,
        _attempts_nav(run.id, attempts),
        el("p", "keys: j / k next / previous row, u back to the rows", class_="muted small"),
        chip_legend(),
        row_card(row, level=2),
        frag(*(state_diff_section(r, level=2) for r in state_diffs(row.results))),
        labels,  # human labels (tooleval.web.labels)
    )


def _attempts_nav(run_id: str, attempts: tuple[int, list[int]] | None) -> Safe | None:
    if attempts is None:
        return None
    number, indexes = attempts
    links = [
        el("span", f"attempt {k}", class_="current", aria_current="page")
        if k == number
        else el("a", f"attempt {k}", href=href("/runs", run_id, "rows", index))
        for k, index in enumerate(indexes, start=1)
    ]
    return el(
        "nav",
        el("strong", f"attempt {number} of {len(indexes)}"),
        *links,
        el(
            "span",
            "each attempt is a row of its own in the counts above the rows",
            class_="muted small",
        ),
        class_="pager attempts",
        aria_label="attempts of this row",
    )


# ---------------------------------------------------------------- errors
