"""The local viewer: a FastAPI app over the run store's public read API.

Server-rendered HTML, one stylesheet and one small script served from the
package, no CDN. Every response carries a strict Content-Security-Policy
(no inline script, no inline style, nothing from other origins), so even a
markup bug could not run a row's ``<script>``.

Pages: ``/`` runs (search, tag), ``/runs/{id}`` one run (filters, sort,
pages of ``count_rows``/``iter_rows`` with offset and limit, never every
row), ``/runs/{id}/rows/{index}`` one row, ``/compare?a=&b=`` two runs.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from importlib import resources
from typing import Any

from tooleval.errors import InputError, StoreError

__all__ = ["CSP", "create_app"]

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
_STATIC = {"style.css": "text/css", "viewer.js": "text/javascript"}
_FINISHED = ("finished", "interrupted", "failed")


class _Cache:
    """A small LRU for results that only finished runs may reuse (they no longer change)."""

    def __init__(self, size: int = 8) -> None:
        self._items: OrderedDict[Any, Any] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get(self, key: Any) -> Any:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        return None

    def put(self, key: Any, value: Any) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)


def _static_text(name: str) -> str:
    if name == "style.css":
        return resources.files("tooleval.report").joinpath(name).read_text(encoding="utf-8")
    return resources.files("tooleval.web").joinpath("static", name).read_text(encoding="utf-8")


def create_app(store: Any) -> Any:
    """The viewer as a FastAPI app reading ``store`` (tests drive it with TestClient)."""
    from fastapi import FastAPI, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import HTMLResponse, Response
    from starlette.exceptions import HTTPException as StarletteHTTPException

    from tooleval.report.html import el, href
    from tooleval.report.stats import category_stats, class_counts, score_bins
    from tooleval.runs.clusters import FAILURE_CLASSES
    from tooleval.store.sql import ORDER_BY
    from tooleval.web import pages

    app = FastAPI(title="tooleval viewer", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.store = store
    charts = _Cache()
    comparisons = _Cache(4)
    overviews = _Cache(16)

    @app.middleware("http")
    async def security_headers(request: Request, call_next: Any) -> Any:
        response = await call_next(request)
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Frame-Options"] = "DENY"
        return response

    def error(status: int, title: str, message: str, hint: Any = None) -> HTMLResponse:
        return HTMLResponse(pages.error_page(status, title, message, hint=hint), status_code=status)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> HTMLResponse:
        if exc.status_code == 404:
            return error(404, "Not found", f"There is no page at {request.url.path}.")
        return error(exc.status_code, "Error", str(exc.detail))

    @app.exception_handler(RequestValidationError)
    async def bad_query(request: Request, exc: RequestValidationError) -> HTMLResponse:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e.get('loc', ())[1:])}: {e.get('msg')}"
            for e in exc.errors()
        )
        return error(400, "Bad request", f"Some values in the address are not valid: {problems}.")

    @app.exception_handler(StoreError)
    async def store_error(request: Request, exc: StoreError) -> HTMLResponse:
        return error(
            404, "Not found", str(exc), hint=el("p", "The runs list shows every stored run.")
        )

    @app.exception_handler(InputError)
    async def input_error(request: Request, exc: InputError) -> HTMLResponse:
        return error(400, "Bad request", str(exc))

    @app.get("/static/{name}")
    def static(name: str) -> Response:
        if name not in _STATIC:
            return error(404, "Not found", f"There is no static file {name!r}.")
        return Response(
            _static_text(name),
            media_type=_STATIC[name],
            headers={"Cache-Control": "max-age=300"},
        )

    @app.get("/", response_class=HTMLResponse)
    def runs(q: str | None = None, tag: str | None = None) -> HTMLResponse:
        every = store.list_runs()
        tags = sorted({t for r in every for t in r.tags})
        shown = store.list_runs(search=q or None, tag=tag or None) if (q or tag) else every
        return HTMLResponse(pages.runs_page(shown, q=q, tag=tag, tags=tags))

    @app.get("/runs/{run_id}", response_class=HTMLResponse)
    def run(
        run_id: str,
        category: str | None = None,
        metric: str | None = None,
        result: str | None = None,
        failure_class: str | None = None,
        q: str | None = None,
        sort: str = "index",
        page: int = 1,
        per_page: int = 50,
    ) -> HTMLResponse:
        info = store.get_run(run_id)
        metrics = list(info.summaries)
        checks = [
            (metric, metrics, "metric"),
            (result, ["pass", "fail"], "result"),
            (failure_class, list(FAILURE_CLASSES), "failure_class"),
            (sort, list(ORDER_BY), "sort"),
        ]
        for value, allowed, name in checks:
            if value and value not in allowed:
                raise InputError(
                    f"unknown {name} {value!r}; expected one of {', '.join(allowed) or '(none)'}",
                    field=name,
                )
        if sort.lstrip("-") == "score" and not metric:
            raise InputError(
                "sorting by score needs a metric; pick one in the filters", field="sort"
            )
        if per_page not in pages.PAGE_SIZES:
            raise InputError(
                f"per_page must be one of {', '.join(map(str, pages.PAGE_SIZES))}", field="per_page"
            )
        if page < 1:
            raise InputError("page numbers start at 1", field="page")
        filters = pages.RunFilters(
            category=category or None,
            metric=metric or None,
            result=result or None,
            failure_class=failure_class or None,
            q=q or None,
            sort=sort,
            page=page,
            per_page=per_page,
        )
        where = dict(
            category=filters.category,
            metric=filters.metric,
            passed=filters.passed,
            failure_class=filters.failure_class,
            search=filters.q,
        )
        total = store.count_rows(info.id, **where)
        last = max(1, -(-total // per_page))
        if page > last:
            return error(
                404,
                "No such page",
                f"Page {page} is past the end: these filters match {total} rows, {last} page(s).",
                hint=el("p", el("a", "go to the last page", href=filters.link(info.id, page=last))),
            )
        rows = list(
            store.iter_rows(
                info.id, **where, offset=(page - 1) * per_page, limit=per_page, order_by=sort
            )
        )
        key = ("overview", info.id, info.row_count)
        overview = overviews.get(key) if info.status in _FINISHED else None
        if overview is None:
            counts = class_counts(store, info.id, list(FAILURE_CLASSES))
            overview = {
                "categories": store.categories(info.id),
                # Row verdicts per category only: per-metric rates cost two queries each.
                "stats": category_stats(store, info, per_metric=False),
                "counts": counts,
                "examples": {
                    cls: list(store.iter_rows(info.id, failure_class=cls, limit=3))
                    for cls in counts
                },
            }
            overviews.put(key, overview)
        html = pages.run_page(
            info,
            rows=rows,
            total=total,
            filters=filters,
            categories=overview["categories"],
            category_stats=overview["stats"],
            class_counts=overview["counts"],
            class_examples=overview["examples"],
            failure_classes=FAILURE_CLASSES,
        )
        return HTMLResponse(html)

    @app.get("/runs/{run_id}/charts/scores.svg")
    def scores_chart(run_id: str, metric: str) -> Response:
        from tooleval.report.charts import histogram_svg

        info = store.get_run(run_id)
        key = (info.id, info.row_count)
        bins = charts.get(key) if info.status in _FINISHED else None
        if bins is None:
            bins = {b.metric: b for b in score_bins(store, info)}
            charts.put(key, bins)
        if metric not in bins:
            raise InputError(f"run {info.id} has no metric {metric!r}", field="metric")
        b = bins[metric]
        svg = histogram_svg(
            counts=b.counts, threshold=b.threshold, title=f"{metric} ({sum(b.counts)} scored)"
        )
        return Response(str(svg), media_type="image/svg+xml")

    @app.get("/runs/{run_id}/rows/{index}", response_class=HTMLResponse)
    def row(run_id: str, index: int) -> HTMLResponse:
        info = store.get_run(run_id)
        try:
            record = store.get_row(info.id, index)
        except StoreError:
            return error(
                404,
                "No such row",
                f"Run {info.id} has no row {index} (it has {info.row_count} rows, numbered from 0).",
                hint=el("p", el("a", "back to the run", href=href("/runs", info.id))),
            )
        previous = index - 1 if index > 0 else None
        following = index + 1 if index + 1 < info.row_count else None
        return HTMLResponse(pages.row_page(info, record, previous=previous, following=following))

    @app.get("/compare", response_class=HTMLResponse)
    def compare(
        a: str | None = None,
        b: str | None = None,
        change: str | None = None,
        metric: str | None = None,
        page: int = 1,
    ) -> HTMLResponse:
        from tooleval.runs.compare import CHANGES, compare_runs

        every = store.list_runs()
        comparison = None
        if change and change not in CHANGES:
            raise InputError(
                f"unknown change {change!r}; expected one of {', '.join(CHANGES)}", field="change"
            )
        if page < 1:
            raise InputError("page numbers start at 1", field="page")
        if a and b:
            info_a, info_b = store.get_run(a), store.get_run(b)
            key = (info_a.id, info_a.row_count, info_b.id, info_b.row_count)
            done = info_a.status in _FINISHED and info_b.status in _FINISHED
            comparison = comparisons.get(key) if done else None
            if comparison is None:
                comparison = compare_runs(store, info_a.id, info_b.id)
                comparisons.put(key, comparison)
            if metric and metric not in comparison.metrics:
                raise InputError(f"unknown metric {metric!r}", field="metric")
        return HTMLResponse(
            pages.compare_page(
                every,
                a=a,
                b=b,
                comparison=comparison,
                change=change or None,
                metric=metric or None,
                page=page,
            )
        )

    return app
