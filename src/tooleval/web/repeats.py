"""The run page's "Repeats" section: pass^k / pass@k per k and per category, flaky rows.

Shown for a run made with ``--repeat N`` (N >= 2); reads
:class:`tooleval.analysis.repeats.RepeatSummary`, built from the stored rows by
:func:`tooleval.analysis.repeats.summarise_run`. Pure: records in, HTML out.

>>> from tooleval.analysis.repeats import RepeatSummary, RowRepeats
>>> row = RowRepeats("r1", "refund", 2, 1, 0, 1.0, (True, False))
>>> html = repeat_section("run-1", RepeatSummary(n=2, rows=(row,)))
>>> "pass^k" in html and "r1" in html and "1/2" in html
True
"""

from __future__ import annotations

from typing import Any

from tooleval.report.components import pct
from tooleval.report.html import Safe, el, frag, href

__all__ = ["FLAKY_LIMIT", "repeat_section", "repeats_html"]

FLAKY_LIMIT = 50
_MARK = {True: ("P", "badge badge-pass", "passed"), False: ("F", "badge badge-fail", "failed")}
_ERROR = ("E", "badge badge-error", "error")


def _verdicts(verdicts: tuple[bool | None, ...]) -> Safe:
    marks = []
    for attempt, verdict in enumerate(verdicts, start=1):
        text, cls, word = _ERROR if verdict is None else _MARK[verdict]
        marks.append(el("span", text, class_=cls, title=f"attempt {attempt}: {word}"))
    return frag(*marks)


def repeat_section(run_id: str, summary: Any, *, limit: int = FLAKY_LIMIT) -> Safe:
    """HTML for a repeated run: pass^k and pass@k for k = 1..n, per category, flaky rows."""
    n = summary.n
    complete = len(summary.complete)
    flaky = summary.flaky
    by_k = el(
        "table",
        el(
            "thead",
            el(
                "tr",
                el("th", "k", class_="num"),
                el("th", "pass^k", class_="num"),
                el("th", "pass@k", class_="num"),
            ),
        ),
        el(
            "tbody",
            [
                el(
                    "tr",
                    el("td", k, class_="num"),
                    el("td", pct(summary.pass_hat(k)), class_="num"),
                    el("td", pct(summary.pass_at(k)), class_="num"),
                )
                for k in range(1, n + 1)
            ],
        ),
        class_="repeats-k",
    )
    per_category = el(
        "table",
        el(
            "thead",
            el(
                "tr",
                el("th", "category"),
                el("th", f"pass^{n}", class_="num"),
                el("th", f"pass@{n}", class_="num"),
                el("th", "flaky rows", class_="num"),
            ),
        ),
        el(
            "tbody",
            [
                el(
                    "tr",
                    el("td", category),
                    el("td", pct(summary.pass_hat(category=category)), class_="num"),
                    el("td", pct(summary.pass_at(category=category)), class_="num"),
                    el(
                        "td",
                        sum(1 for r in flaky if (r.category or "(none)") == category),
                        class_="num",
                    ),
                )
                for category in summary.categories
            ],
        ),
        class_="repeats-categories",
    )
    if flaky:
        flaky_rows = el(
            "table",
            el(
                "thead",
                el(
                    "tr",
                    el("th", "row"),
                    el("th", "category"),
                    el("th", "passed", class_="num"),
                    el("th", "attempts"),
                    el("th", "score spread", class_="num"),
                ),
            ),
            el(
                "tbody",
                [
                    el(
                        "tr",
                        el(
                            "td",
                            el(
                                "a",
                                row.row_id,
                                href=href("/runs", run_id, q=row.row_id, fragment="rows"),
                            ),
                            class_="rowid",
                        ),
                        el("td", row.category or "(none)"),
                        el("td", f"{row.passed}/{row.attempts}", class_="num"),
                        el("td", _verdicts(row.verdicts), class_="verdicts"),
                        el("td", f"{row.spread:.2f}", class_="num"),
                    )
                    for row in flaky[:limit]
                ],
            ),
            class_="repeats-flaky",
        )
        more = len(flaky) - limit
        flaky_part = frag(
            el("h3", f"Flaky rows ({len(flaky)}): pass on some attempts, fail on others"),
            flaky_rows,
            el("p", f"… and {more} more", class_="muted") if more > 0 else None,
        )
    else:
        flaky_part = el("p", "No flaky rows: every row passed all attempts or none.", class_="ok")
    incomplete = len(summary.rows) - complete
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
        by_k,
        el("h3", f"pass^{n} and pass@{n} per category"),
        per_category,
        flaky_part,
        class_="repeats",
        aria_labelledby="repeats",
    )


def repeats_html(store: Any, info: Any) -> Safe | None:
    """The section for a stored run made with ``--repeat N``; None for a run made once."""
    from tooleval.analysis.repeats import summarise_run

    summary = summarise_run(store, info)
    return None if summary is None else repeat_section(info.id, summary)
