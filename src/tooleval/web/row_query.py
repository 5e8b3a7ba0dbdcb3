"""The rows-filter part of a viewer address, read once for every route that filters rows.

A run's page, one of its rows and its exports all take the same query
parameters: ``category``, ``metric``, ``result``, ``failure_class``, ``q``,
``sort`` and ``detail``. :class:`RowQuery` holds them; a route declares
``rows: RowQuery = Depends()`` and FastAPI reads each field from the query
string under its own name, with its default. The values are checked against
the run (:func:`tooleval.web.routes.run_filters`) by :meth:`RowQuery.filters`.

>>> RowQuery(result="fail").sort, ExportQuery().sort
('failures', 'index')
"""

from __future__ import annotations

from dataclasses import dataclass

from tooleval.store.records import RunInfo
from tooleval.web.pages import DEFAULT_SORT, RunFilters
from tooleval.web.routes import run_filters

__all__ = ["ExportQuery", "RowQuery"]


@dataclass(frozen=True, slots=True)
class RowQuery:
    """The rows filters and order of a run view, as given (unchecked) in the address.

    >>> info = RunInfo("r1", "nightly", "1", "finished")
    >>> filters, note = RowQuery(category="refund", sort="index").filters(info, page=2)
    >>> filters.category, filters.sort, filters.page, filters.per_page, note
    ('refund', 'index', 2, 50, None)
    >>> RowQuery(result="maybe").filters(info)
    Traceback (most recent call last):
    tooleval.errors.InputError: field result: unknown result 'maybe'; expected one of pass, fail
    """

    category: str | None = None
    metric: str | None = None
    result: str | None = None
    failure_class: str | None = None
    q: str | None = None
    sort: str = DEFAULT_SORT
    detail: str | None = None

    def filters(
        self, info: RunInfo, *, page: int = 1, per_page: int = 50
    ) -> tuple[RunFilters, str | None]:
        """The checked filters on ``info``'s rows, and a note when one was completed."""
        return run_filters(
            info,
            self.category,
            self.metric,
            self.result,
            self.failure_class,
            self.q,
            self.sort,
            page,
            per_page,
            self.detail,
        )


@dataclass(frozen=True, slots=True)
class ExportQuery(RowQuery):
    """The same filters for an export: a file keeps the stored row order unless told."""

    sort: str = "index"
