"""The HTML document around a page, shared by the static report and the viewer.

>>> doc = document("t<", el("p", "x"), inline_css=True)
>>> doc.startswith("<!DOCTYPE html>") and "<title>t&lt;</title>" in doc
True
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from tooleval.report.html import Href, Safe, el, frag, href, void

__all__ = ["REPORT_CSP", "chip_legend", "document", "stylesheet_text"]

# The static report holds no script at all; this meta policy makes sure none runs.
REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'"


@cache
def stylesheet_text() -> str:
    """The shared stylesheet (``tooleval/report/style.css``)."""
    return resources.files("tooleval.report").joinpath("style.css").read_text(encoding="utf-8")


def chip_legend() -> Safe:
    """What the chip marks (and the rows table's short marks) mean."""
    return el(
        "div",
        el("span", "chips:"),
        el("span", el("code", "− missing"), class_="chip chip-small chip-missing"),
        el("span", "expected, never called"),
        el("span", el("code", "+ extra"), class_="chip chip-small chip-extra"),
        el("span", "called, not expected"),
        el("span", el("code", "⇅ out of order"), class_="chip chip-small chip-order"),
        el("span", el("code", "≠ wrong args"), class_="chip chip-small chip-args"),
        el("span", el("code", "⚠ look-alike"), class_="chip chip-small chip-lookalike-legend"),
        el("span", "name with invisible or mixed-script characters"),
        class_="legend",
    )


def document(
    title: str,
    *body: Safe | None,
    inline_css: bool = False,
    stylesheet: Href | None = None,
    scripts: tuple[Href, ...] = (),
    topbar: Safe | None = None,
) -> Safe:
    """A complete page: inline CSS (the report) or linked CSS and scripts (the viewer)."""
    head = [
        void("meta", charset="utf-8"),
        void("meta", name="viewport", content="width=device-width, initial-scale=1"),
        el("title", title),
    ]
    if inline_css:
        head.append(void("meta", http_equiv="Content-Security-Policy", content=REPORT_CSP))
        head.append(el("style", Safe(stylesheet_text())))
    if stylesheet is not None:
        head.append(void("link", rel="stylesheet", href=stylesheet))
    head.extend(el("script", src=s, defer=True) for s in scripts)
    return Safe(
        "<!DOCTYPE html>\n"
        + el(
            "html",
            el("head", head),
            el(
                "body",
                el("a", "Skip to content", href=href("#", fragment="main"), class_="skip-link"),
                topbar,
                el("main", frag(*body), id="main", tabindex="-1"),
            ),
            lang="en",
        )
    )
