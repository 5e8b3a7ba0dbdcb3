"""The "Repeats" section of a run (report and viewer): pass^k / pass@k per k and category, flaky rows.

Shown for a run made with ``--repeat N`` (N >= 2). Renders the digest of
:meth:`tooleval.analysis.repeats.RepeatSummary.digest` (what
:func:`tooleval.analysis.aggregates.run_repeats` keeps in the store for a stopped
run). Pure: a digest in, HTML out; ``link`` turns a row id into the address of
its rows (the viewer's filtered list, the static report's first card of the row);
an empty address leaves the id as text.

>>> from tooleval.analysis.repeats import RepeatSummary, RowRepeats
>>> row = RowRepeats("r1", "refund", 2, 1, 0, 1.0, (True, False))
>>> html = repeat_section(RepeatSummary(n=2, rows=(row,)).digest())
>>> "pass^k" in html and "r1" in html and "1/2" in html
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tooleval.report.components import pct
from tooleval.report.html import Safe, el, frag

__all__ = ["repeat_section"]

_MARK = {True: ("P", "badge badge-pass", "passed"), False: ("F", "badge badge-fail", "failed")}
_ERROR = ("E", "badge badge-error", "error")


def _row_id(row_id: str, link: Callable[[str], str] | None) -> Any:
    target = link(row_id) if link is not None else ""
    return el("a", row_id, href=target) if target else row_id


AttemptLink = Callable[[int, int], str]


def _verdicts(
    verdicts: list[bool | None], first: int | None, attempt_link: AttemptLink | None
) -> Safe:
    """One badge per attempt, each a link to that attempt's row when the address is known."""
    marks = []
    for attempt, verdict in enumerate(verdicts, start=1):
        text, cls, word = _ERROR if verdict is None else _MARK[verdict]
        title = f"attempt {attempt} of {len(verdicts)}: {word}"
        target = attempt_link(first, attempt) if attempt_link and first is not None else ""
        badge = el("span", text, class_=cls, title=title)
        marks.append(
            el("a", badge, href=target, aria_label=title, class_="attempt") if target else badge
        )
    return frag(*marks)


def _by_k(digest: Mapping[str, Any]) -> Safe:
    head = el(
        "tr",
        el("th", "k", class_="num"),
        el("th", "pass^k", class_="num"),
        el("th", "pass@k", class_="num"),
    )
    body = [
        el(
            "tr",
            el("td", k, class_="num"),
            el("td", pct(hat), class_="num"),
            el("td", pct(at), class_="num"),
        )
        for k, (hat, at) in enumerate(
            zip(digest["pass_hat"], digest["pass_at"], strict=True), start=1
        )
    ]
    return el("table", el("thead", head), el("tbody", body), class_="repeats-k")


def _per_category(digest: Mapping[str, Any]) -> Safe:
    n = digest["n"]
    head = el(
        "tr",
        el("th", "category"),
        el("th", f"pass^{n}", class_="num"),
        el("th", f"pass@{n}", class_="num"),
        el("th", "flaky rows", class_="num"),
    )
    body = [
        el(
            "tr",
            el("td", category["name"]),
            el("td", pct(category["pass_hat"]), class_="num"),
            el("td", pct(category["pass_at"]), class_="num"),
            el("td", category["flaky"], class_="num"),
        )
        for category in digest["categories"]
    ]
    return el("table", el("thead", head), el("tbody", body), class_="repeats-categories")


def _flaky(
    digest: Mapping[str, Any],
    link: Callable[[str], str] | None,
    attempt_link: AttemptLink | None,
) -> Safe:
    flaky, flaky_total = digest["flaky"], digest["flaky_total"]
    if not flaky:
        return el("p", "No flaky rows: every row passed all attempts or none.", class_="ok")
    head = el(
        "tr",
        el("th", "row"),
        el("th", "category"),
        el("th", "passed", class_="num"),
        el("th", "attempts"),
        el("th", "score spread", class_="num"),
    )
    body = [
        el(
            "tr",
            el("td", _row_id(row["row_id"], link), class_="rowid"),
            el("td", row["category"] or "(none)"),
            el("td", f"{row['passed']}/{row['attempts']}", class_="num"),
            el(
                "td",
                _verdicts(row["verdicts"], row.get("index"), attempt_link),
                class_="verdicts",
            ),
            el("td", f"{row['spread']:.2f}", class_="num"),
        )
        for row in flaky
    ]
    more = flaky_total - len(flaky)
    return frag(
        el("h3", f"Flaky rows ({flaky_total}): pass on some attempts, fail on others"),
        el(
            "div",
            el("table", el("thead", head), el("tbody", body), class_="repeats-flaky"),
            class_="table-scroll",
            tabindex="0",
        ),
        el("p", f"… and {more} more", class_="muted") if more > 0 else None,
    )


def repeat_section(
    digest: Mapping[str, Any],
    *,
    link: Callable[[str], str] | None = None,
    attempt_link: AttemptLink | None = None,
) -> Safe:
    """HTML for a repeated run: pass^k and pass@k for k = 1..n, per category, flaky rows.

    ``attempt_link(first_index, attempt)`` gives the address of one attempt
    (each P / F / E badge links there); ``link`` that of a row's attempts.
    """
    n = digest["n"]
    complete = digest["complete"]
    incomplete = digest["rows"] - complete
    return el(
        "section",
        el("h2", f"Repeats: {n} attempts per row", id="repeats"),
        el(
            "p",
            f"{complete} rows with all {n} attempts",
            f"; {incomplete} rows not yet complete (left out)" if incomplete else "",
            ". pass^k: the chance that k attempts all pass; pass@k: that at least one of k passes.",
            class_="muted",
        ),
        el(
            "p",
            f"Counts per attempt and per row: the metrics table, the categories, the clusters "
            f"and the rows list count attempts (each dataset row {n} times); pass^k, pass@k "
            "and the flaky rows here count dataset rows.",
            class_="note small",
        ),
        _by_k(digest),
        el("h3", f"pass^{n} and pass@{n} per category"),
        _per_category(digest),
        _flaky(digest, link, attempt_link),
        class_="repeats",
        aria_labelledby="repeats",
    )
