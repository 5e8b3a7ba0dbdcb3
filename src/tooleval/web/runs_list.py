"""The viewer's runs list: every run with its gate verdict, picked for comparison in place.

>>> from tooleval.store.records import RunInfo
>>> "compare with previous" in runs_page([RunInfo("b", "n", "2", "finished"),
...     RunInfo("a", "n", "1", "finished")], q=None, tag=None, tags=[], previous={"b": "a"})
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooleval.analysis.figures import RunFigures, SliceFigures
from tooleval.report.components import pct
from tooleval.report.html import Safe, el, frag, href, void
from tooleval.store.records import RunInfo
from tooleval.web.pages import page, select

__all__ = ["runs_page"]


def _overall(figures: RunFigures | None) -> list[SliceFigures]:
    """Each metric's figures over the whole run (none when the run's were not given)."""
    if figures is None:
        return []
    return [f for name in figures.metrics if (f := figures.get(name)) is not None]


def _run_line(
    run: RunInfo,
    status: tuple[str, str],
    gate: Any,
    before: str | None,
    usage: str | None = None,
    figures: RunFigures | None = None,
) -> Safe:
    """One run of the list: pick box, name with id and time, status, gate, counts, tags."""
    from tooleval.report.overview import gate_badge

    text, kind = status
    return el(
        "tr",
        el(
            "td",
            void(
                "input",
                type="checkbox",
                name="run",
                value=run.id,
                form="pick",
                aria_label=f"select {run.name} ({run.id})",
                class_="pick",
            ),
        ),
        el(
            "td",
            el("a", run.name, href=href("/runs", run.id)),
            el(
                "div",
                el("code", run.id),
                " · ",
                run.created_at[:16].replace("T", " "),
                class_="muted small run-meta",
            ),
            el(
                "div",
                el("a", "compare with previous", href=href("/compare", a=before, b=run.id)),
                class_="small",
            )
            if before
            else None,
            class_="rowid",
        ),
        el("td", text, class_=f"status-{kind}"),
        el("td", gate_badge(gate), class_="gate-cell"),
        el("td", run.row_count, class_="num"),
        el("td", run.error_count, class_="num"),
        el(
            "td",
            frag(
                el("div", el("span", f"{f.metric} ", class_="muted"), el("strong", pct(f.rate)))
                for f in _overall(figures)
            ),
            el("div", usage, class_="muted small usage-line") if usage else None,
        ),
        el("td", frag(el("span", t, class_="tag") for t in run.tags)),
    )


def _pick_form() -> Safe:
    """The form the rows' check boxes belong to: two runs or more open their comparison."""
    return el(
        "form",
        el("button", "compare selected", type="submit"),
        el(
            "span",
            " two runs side by side, three or more as a matrix of rows × runs",
            class_="muted small",
        ),
        method="get",
        action=href("/compare"),
        id="pick",
        class_="pick-form",
    )


def runs_page(
    runs: Sequence[RunInfo],
    *,
    q: str | None,
    tag: str | None,
    tags: Sequence[str],
    statuses: dict[str, tuple[str, str]] | None = None,
    gates: dict[str, Any] | None = None,
    previous: dict[str, str] | None = None,
    usage: dict[str, str | None] | None = None,
    figures: dict[str, RunFigures] | None = None,
) -> str:
    """Every stored run, newest first, searchable by name and filterable by tag.

    ``statuses``: (text, kind) per run id, for runs whose stored status is not
    the whole story (a ``running`` run: live holder or stopped, see run_status).
    ``gates``: each run's gate verdict; ``previous``: the run before each one
    of the same plan or dataset (a "compare with previous" link); ``usage``: a
    run's tokens in one line, when already counted; ``figures``: each run's read
    model (its pass rates, error rows counted as not passed). Ticking two
    runs or more and "compare selected" opens their comparison.
    """
    form = el(
        "form",
        el(
            "label",
            "search",
            void("input", type="search", name="q", value=q or "", placeholder="name or id"),
        ),
        select("tag", "tag", [("", "any tag")] + [(t, t) for t in tags], tag),
        el("button", "filter", type="submit"),
        method="get",
        action=href("/"),
        class_="filters",
    )
    head = el(
        "tr",
        el("th", el("span", "select", class_="sr-only")),
        *(
            el("th", h, class_=c)
            for h, c in (
                ("run", None),
                ("status", None),
                ("gate", None),
                ("rows", "num"),
                ("errors", "num"),
                ("pass rate per metric", None),
                ("tags", None),
            )
        ),
    )
    statuses, gates, previous = statuses or {}, gates or {}, previous or {}
    usage = usage or {}
    body = [
        _run_line(
            run,
            statuses.get(run.id, (run.status, run.status)),
            gates.get(run.id),
            previous.get(run.id),
            usage.get(run.id),
            (figures or {}).get(run.id),
        )
        for run in runs
    ]
    table = (
        el(
            "div",
            el("table", el("thead", head), el("tbody", body), class_="runs"),
            class_="table-scroll",
            tabindex="0",
        )
        if runs
        else el(
            "p",
            "No runs match."
            if (q or tag)
            else "No runs stored yet: start one with `tooleval run PLAN`.",
            class_="muted",
        )
    )
    pick = _pick_form() if len(runs) >= 2 else None
    return page("tooleval runs", el("h1", "Runs"), form, pick, table)
