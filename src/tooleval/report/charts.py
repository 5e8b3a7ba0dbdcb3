"""Charts as inline SVG, drawn in pure Python (no JavaScript library).

Colours are SVG presentation attributes, not ``style``, so the same SVG works
inline in a page, as a standalone ``image/svg+xml`` response, and under the
viewer's Content-Security-Policy. Labels are escaped like any other text.

>>> svg = histogram_svg([0.0, 0.5, 1.0, 1.0], threshold=0.5, title="tool_correctness")
>>> svg.startswith("<svg") and "threshold 0.5" in svg
True
>>> bin_counts([0.0, 0.05, 0.5, 0.95, 1.0], bins=10)
[2, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tooleval.report.html import Safe, el

__all__ = [
    "PASS",
    "FAIL",
    "THEME_CSS",
    "bar_chart_svg",
    "bin_counts",
    "delta_chart_svg",
    "histogram_svg",
]

PASS = "#2f855a"
FAIL = "#c53030"
NEUTRAL = "#4a6fa5"
MIXED = "#b7791f"
INK = "#1a202c"
MUTED = "#5a6578"
GRID = "#e2e8f0"
_FONT = "system-ui, -apple-system, 'Segoe UI', sans-serif"


def bin_counts(scores: Iterable[float], *, bins: int = 10) -> list[int]:
    """Scores counted into ``bins`` equal bins over [0, 1) plus one last bin for exactly 1.0.

    A perfect score gets its own bar: with a threshold of 1.0 it is the only
    passing one, and it must not share a bar with 0.95.
    """
    counts = [0] * (bins + 1)
    for score in scores:
        position = bins if score >= 1.0 else min(int(score * bins), bins - 1)
        counts[max(position, 0)] += 1
    return counts


# The theme's colours in dark mode: the light colours are presentation
# attributes (they work anywhere), remapped by value when the reader's system is dark.
_DARK = {
    "fill": {
        INK: "#e2e8f0",
        "#2d3748": "#e2e8f0",
        MUTED: "#a0aec0",
        GRID: "#2d3748",
        PASS: "#48bb78",
        FAIL: "#fc8181",
        NEUTRAL: "#90cdf4",
        MIXED: "#f6ad55",
    },
    "stroke": {INK: "#e2e8f0", MUTED: "#a0aec0", GRID: "#2d3748"},
}
THEME_CSS = (
    "@media (prefers-color-scheme: dark) { "
    + " ".join(
        f'svg.chart [{attr}="{light}"] {{ {attr}: {dark}; }}'
        for attr, pairs in _DARK.items()
        for light, dark in pairs.items()
    )
    + " }"
)


def standalone_svg(svg: Safe) -> str:
    """An SVG chart served as a document of its own, with :data:`THEME_CSS` inside.

    Inline in a page, the page's stylesheet (``style.css``, which holds the
    same rules) recolours the chart; an ``<img>`` of a chart needs them inside.

    >>> "prefers-color-scheme" in standalone_svg(histogram_svg([0.5]))
    True
    """
    return str(svg).replace("</title>", f"</title><style>{THEME_CSS}</style>", 1)


def _svg(width: int, height: int, label: str, *body: Safe) -> Safe:
    return el(
        "svg",
        el("title", label),
        *body,
        xmlns="http://www.w3.org/2000/svg",
        viewBox=f"0 0 {width} {height}",
        width=width,
        height=height,
        role="img",
        aria_label=label,
        font_family=_FONT,
        font_size="12",
        class_="chart",
    )


def _short(label: str, limit: int = 20) -> str:
    return label if len(label) <= limit else label[: limit - 1] + "…"


def _text(x: float, y: float, content: str, **attrs: object) -> Safe:
    return el("text", content, x=f"{x:.1f}", y=f"{y:.1f}", **attrs)


def _bar_colour(low: float, high: float, threshold: float | None) -> tuple[str, str]:
    """Colour and word of a bar covering scores in [low, high) against the threshold."""
    if threshold is None:
        return NEUTRAL, ""
    if high <= threshold:
        return FAIL, "below threshold"
    if low >= threshold:
        return PASS, "passing"
    return MIXED, "threshold inside this bar"


def _histogram_bars(
    counts: Sequence[int],
    threshold: float | None,
    *,
    left: float,
    top: float,
    plot_h: float,
    bar_w: float,
) -> list[Safe]:
    """One bar a bin (the last one for exactly 1.0), with its tooltip and its count above it."""
    bins = max(len(counts) - 1, 1)
    peak = max(counts) if counts and max(counts) > 0 else 1
    parts: list[Safe] = []
    for i, count in enumerate(counts):
        exact = i == len(counts) - 1
        low = 1.0 if exact else i / bins
        high = 1.0 + 1e-9 if exact else (i + 1) / bins
        bar_h = plot_h * count / peak
        x = left + i * bar_w
        colour, word = _bar_colour(low, high, threshold)
        label = "exactly 1.0" if exact else f"{low:.1f}–{high:.1f}"
        parts.append(
            el(
                "rect",
                el("title", f"{label}: {count} rows" + (f" ({word})" if word else "")),
                x=f"{x + 1:.1f}",
                y=f"{top + plot_h - bar_h:.1f}",
                width=f"{max(bar_w - 2, 1):.1f}",
                height=f"{bar_h:.1f}",
                fill=colour,
            )
        )
        if count:
            parts.append(
                _text(
                    x + bar_w / 2,
                    top + plot_h - bar_h - 3,
                    str(count),
                    text_anchor="middle",
                    fill=INK,
                    font_size="10",
                )
            )
    return parts


def _threshold_marker(
    threshold: float,
    *,
    left: float,
    top: float,
    plot_w: float,
    plot_h: float,
    axis_w: float,
    height: float,
) -> list[Safe]:
    """The dashed threshold line across the plot and its label under the axis."""
    x = left + axis_w * min(max(threshold, 0.0), 1.0)
    line = el(
        "line",
        x1=f"{x:.1f}",
        y1=top - 4,
        x2=f"{x:.1f}",
        y2=top + plot_h,
        stroke=INK,
        stroke_dasharray="4 3",
    )
    # Anchored so the label stays inside the chart at either end of the axis.
    anchor = (
        "end" if x > left + plot_w * 0.7 else ("start" if x < left + plot_w * 0.3 else "middle")
    )
    return [line, _text(x, height - 2, f"threshold {threshold:g}", text_anchor=anchor, fill=INK)]


def histogram_svg(
    scores: Sequence[float] | None = None,
    *,
    counts: Sequence[int] | None = None,
    threshold: float | None = None,
    title: str = "",
    bins: int = 10,
    width: int = 360,
    height: int = 170,
) -> Safe:
    """Score distribution: ``bins`` bars over [0, 1) and a last bar for exactly 1.0.

    Give the ``scores`` or precomputed ``counts`` (from :func:`bin_counts`).
    Bars wholly under the threshold are red, wholly at or over it green, a bar
    the threshold cuts through amber.

    >>> svg = str(histogram_svg([0.2, 1.0, 1.0], threshold=0.5))
    >>> "exactly 1.0: 2 rows (passing)" in svg, "threshold 0.5" in svg
    (True, True)
    """
    counts = list(counts) if counts is not None else bin_counts(scores or (), bins=bins)
    bins = max(len(counts) - 1, 1)
    peak_label = str(max(counts) if counts and max(counts) > 0 else 1)
    # The y-axis label must fit left of the axis however many digits it has.
    left, right, top, bottom = max(34, 12 + 7 * len(peak_label)), 14, 22, 30
    plot_w, plot_h = width - left - right, height - top - bottom
    peak = max(counts) if counts and max(counts) > 0 else 1
    # The [0, 1) bins share the axis; the exact-1.0 bar sits just past it.
    bar_w = plot_w / (bins + 1)
    axis_w = bar_w * bins
    parts: list[Safe] = [
        _text(left, 14, title, font_weight="600", fill=INK),
        el("line", x1=left, y1=top + plot_h, x2=left + plot_w, y2=top + plot_h, stroke=MUTED),
        _text(left - 6, top + 4, str(peak), text_anchor="end", fill=MUTED),
        _text(left - 6, top + plot_h, "0", text_anchor="end", fill=MUTED),
    ]
    parts.extend(_histogram_bars(counts, threshold, left=left, top=top, plot_h=plot_h, bar_w=bar_w))
    for tick in (0.0, 0.5):
        parts.append(
            _text(
                left + axis_w * tick,
                top + plot_h + 14,
                f"{tick:g}",
                text_anchor="middle",
                fill=MUTED,
            )
        )
    parts.append(
        _text(left + axis_w + bar_w / 2, top + plot_h + 14, "1", text_anchor="middle", fill=MUTED)
    )
    if threshold is not None:
        parts.extend(
            _threshold_marker(
                threshold,
                left=left,
                top=top,
                plot_w=plot_w,
                plot_h=plot_h,
                height=height,
                axis_w=axis_w,
            )
        )
    label = f"score distribution of {title}" if title else "score distribution"
    return _svg(width, height, label, *parts)


def bar_chart_svg(
    items: Sequence[tuple[str, float | None, str]],
    *,
    title: str = "",
    width: int = 440,
    row_height: int = 22,
) -> Safe:
    """Horizontal bars of rates in [0, 1]: ``(label, rate or None, note)`` per bar.

    >>> svg = str(bar_chart_svg([("pass rate", 0.75, "3/4"), ("unscored", None, "")]))
    >>> "<title>pass rate: 75.0% 3/4</title>" in svg
    True
    """
    label_w, note_w, top = 160, 90, 24 if title else 6
    plot_w = width - label_w - note_w
    height = top + row_height * max(len(items), 1) + 6
    parts: list[Safe] = []
    if title:
        parts.append(_text(0, 14, title, font_weight="600", fill="#1a202c"))
    for i, (label, rate, note) in enumerate(items):
        y = top + i * row_height
        parts.append(_text(label_w - 8, y + 15, _short(label), text_anchor="end", fill="#2d3748"))
        parts.append(el("rect", x=label_w, y=y + 3, width=plot_w, height=row_height - 8, fill=GRID))
        if rate is not None:
            colour = PASS if rate >= 0.8 else ("#b7791f" if rate >= 0.5 else FAIL)
            parts.append(
                el(
                    "rect",
                    el("title", f"{label}: {rate:.1%} {note}"),
                    x=label_w,
                    y=y + 3,
                    width=f"{plot_w * rate:.1f}",
                    height=row_height - 8,
                    fill=colour,
                )
            )
        value = "–" if rate is None else f"{rate:.0%}"
        parts.append(_text(label_w + plot_w + 6, y + 15, f"{value} {note}", fill="#2d3748"))
    return _svg(width, height, title or "pass rate per category", *parts)


def delta_chart_svg(
    items: Sequence[tuple[str, int, int]],
    *,
    title: str = "fixed vs regressed",
    width: int = 460,
    row_height: int = 22,
) -> Safe:
    """Per label: regressed rows as a red bar to the left, fixed as green to the right.

    >>> svg = str(delta_chart_svg([("task_success", 3, 1)]))
    >>> "task_success: 3 fixed" in svg, "task_success: 1 regressed" in svg
    (True, True)
    """
    label_w, top = 140, 40
    half = (width - label_w - 20) / 2
    centre = label_w + half
    height = top + row_height * max(len(items), 1) + 6
    peak = max([max(f, r) for _, f, r in items] + [1])
    parts: list[Safe] = [
        _text(0, 14, title, font_weight="600", fill="#1a202c"),
        _text(centre - 6, 32, "← regressed", text_anchor="end", fill=FAIL),
        _text(centre + 6, 32, "fixed →", fill=PASS),
        el(
            "line",
            x1=f"{centre:.1f}",
            y1=top - 2,
            x2=f"{centre:.1f}",
            y2=height - 4,
            stroke=MUTED,
        ),
    ]
    for i, (label, fixed, regressed) in enumerate(items):
        y = top + i * row_height
        parts.append(_text(label_w - 8, y + 15, _short(label), text_anchor="end", fill="#2d3748"))
        for count, sign, colour, word in (
            (fixed, 1, PASS, "fixed"),
            (regressed, -1, FAIL, "regressed"),
        ):
            if not count:
                continue
            bar = (half - 30) * count / peak
            x = centre if sign > 0 else centre - bar
            parts.append(
                el(
                    "rect",
                    el("title", f"{label}: {count} {word}"),
                    x=f"{x:.1f}",
                    y=y + 3,
                    width=f"{bar:.1f}",
                    height=row_height - 8,
                    fill=colour,
                )
            )
            tx = centre + sign * (bar + 4)
            parts.append(
                _text(
                    tx, y + 15, str(count), text_anchor="start" if sign > 0 else "end", fill=colour
                )
            )
    return _svg(width, height, title, *parts)
