"""Reports of stored runs: a self-contained HTML file, and the rendering layer the viewer shares.

:func:`build_report` / :func:`write_report` make the static report;
:mod:`tooleval.report.components`, :mod:`~tooleval.report.charts` and
:mod:`~tooleval.report.page` hold the pieces both the report and the
viewer (:mod:`tooleval.web`) draw with.
"""

from __future__ import annotations

from tooleval.report.static import build_report, write_report

__all__ = ["build_report", "write_report"]
