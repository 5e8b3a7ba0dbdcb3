"""Judged pass rates beside their correction for the judge's measured error: one text, every surface.

The figures come from one place, :func:`tooleval.calibration.gate_calibrations`:
for each judged metric of a run, the newest calibration stored under the
judge's identity (model, metric, prompt version, options) and the run's
stored counts, corrected by Rogan-Gladen with a delta-method interval; or
None when that judge was never calibrated. ``runs show``, the HTML report and
the viewer's run page print the lines this module makes from that mapping;
none of them computes a rate of its own.

>>> judged_rate_lines({"task_success": None})[0].startswith("task_success: judge not calibrated")
True
"""

from __future__ import annotations

from collections.abc import Mapping

from tooleval.report.html import Safe, el

__all__ = ["UNCALIBRATED", "judged_rate_lines", "judged_rates_block"]

UNCALIBRATED = (
    "judge not calibrated against labels: its pass rate is shown as judged, uncorrected "
    "(tooleval judge calibrate measures it)"
)


def judged_rate_lines(calibrations: Mapping[str, str | None] | None) -> list[str]:
    """One line per judged metric: its calibration and corrected rate, or that it has none."""
    return [f"{metric}: {line or UNCALIBRATED}" for metric, line in (calibrations or {}).items()]


def judged_rates_block(calibrations: Mapping[str, str | None] | None) -> Safe | None:
    """The lines as a section of a page (None when the run has no judged metric)."""
    lines = judged_rate_lines(calibrations)
    if not lines:
        return None
    return el(
        "section",
        el("h2", "Judged metrics", id="judged"),
        el("ul", [el("li", line) for line in lines], class_="judged-rates"),
        id="judged-rates",
    )
