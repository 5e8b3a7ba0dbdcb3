"""The local viewer: a FastAPI app over the run store's public read API.

Server-rendered HTML, one stylesheet and one small script served from the
package, no CDN. Every response, error pages included, carries a strict
Content-Security-Policy (no inline script, no inline style, nothing from
other origins), so even a markup bug could not run a row's ``<script>``.

Only requests addressed to the viewer's own names are answered (``Host``
127.0.0.1, localhost, [::1] or the ``--host`` it listens on): a page on
another site that rebinds its DNS name to 127.0.0.1 gets a 400, not run data.

Pages: ``/`` runs, ``/runs/{id}`` one run (filters, sort, pages of rows;
numbers above the rows from the stored aggregates), ``/runs/{id}/rows/{index}``
one row, ``/runs/{id}/export.csv|jsonl`` the filtered rows,
``/compare?a=&b=`` two runs, ``/compare/row?a=&b=&ia=&ib=`` one row of both.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from tooleval.errors import InputError, StoreError
from tooleval.store import StoreReader

__all__ = ["CSP", "LOCAL_HOSTS", "SECURITY_HEADERS", "allowed_host", "create_app"]

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Resource-Policy": "same-origin",
}
LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")
_STATIC = {"style.css": "text/css", "viewer.js": "text/javascript"}
# Row indexes are stored as 64-bit integers; anything past that is no row.
_MAX_INDEX = 2**63 - 1


def allowed_host(header: str | None, names: frozenset[str]) -> bool:
    """True when a ``Host`` header names this viewer (port ignored, case-insensitive).

    >>> allowed_host("127.0.0.1:8765", frozenset(LOCAL_HOSTS))
    True
    >>> allowed_host("evil.example:8765", frozenset(LOCAL_HOSTS))
    False
    """
    if not header:
        return False
    host = header.strip().lower()
    if host.startswith("["):
        host = host[: host.find("]") + 1]
    elif host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host in names


def _host_names(host: str | None) -> frozenset[str]:
    names = set(LOCAL_HOSTS)
    if host:
        host = host.strip().lower()
        names.add(f"[{host}]" if ":" in host and not host.startswith("[") else host)
    return frozenset(names)


def _static_text(name: str) -> str:
    if name == "style.css":
        return resources.files("tooleval.report").joinpath(name).read_text(encoding="utf-8")
    return resources.files("tooleval.web").joinpath("static", name).read_text(encoding="utf-8")


def create_app(store: StoreReader, *, host: str | None = None) -> Any:
    """The viewer as a FastAPI app reading ``store`` (tests drive it with TestClient).

    ``host`` is the address the viewer listens on; requests must name it (or
    127.0.0.1, localhost, [::1]) in their ``Host`` header.
    """
    from fastapi import FastAPI, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import HTMLResponse, Response
    from starlette.exceptions import HTTPException as StarletteHTTPException

    from tooleval.report.html import el, href
    from tooleval.report.run_tables import run_status
    from tooleval.report.summary import cached_run, cached_runs
    from tooleval.web import pages, routes

    names = _host_names(host)
    app = FastAPI(title="tooleval viewer", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.store = store

    def secure(response: Any) -> Any:
        for key, value in SECURITY_HEADERS.items():
            response.headers[key] = value
        return response

    def error(status: int, title: str, message: str, hint: Any = None) -> HTMLResponse:
        return secure(
            HTMLResponse(pages.error_page(status, title, message, hint=hint), status_code=status)
        )

    @app.middleware("http")
    async def guard(request: Request, call_next: Any) -> Any:
        if not allowed_host(request.headers.get("host"), names):
            shown = ", ".join(sorted(names))
            return error(
                400,
                "Unknown host",
                f"This viewer answers only to {shown}; open it at one of those addresses.",
            )
        return secure(await call_next(request))

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

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> HTMLResponse:
        # Outside the middleware: this page adds its own security headers.
        return error(
            500,
            "Something went wrong",
            f"The viewer could not build this page ({type(exc).__name__}). "
            "The terminal running `tooleval view` has the details.",
        )

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
        every = cached_runs(store)
        tags = sorted({t for r in every for t in r.tags})
        shown = cached_runs(store, search=q or None, tag=tag or None) if (q or tag) else every
        statuses = {r.id: run_status(store, r) for r in shown if r.status == "running"}
        return HTMLResponse(pages.runs_page(shown, q=q, tag=tag, tags=tags, statuses=statuses))

    @app.get("/runs/{run_id}", response_class=HTMLResponse)
    def run(
        run_id: str,
        category: str | None = None,
        metric: str | None = None,
        result: str | None = None,
        failure_class: str | None = None,
        q: str | None = None,
        sort: str = "failures",
        page: int = 1,
        per_page: int = 50,
    ) -> HTMLResponse:
        info = cached_run(store, run_id)
        filters, note = routes.run_filters(
            info, category, metric, result, failure_class, q, sort, page, per_page
        )
        total = routes.count_view(store, info, filters.where)
        note = routes.narrowing_note(store, info, filters, total, note)
        last = max(1, -(-total // filters.per_page))
        if filters.page > last:
            return error(
                404,
                "No such page",
                f"Page {page} is past the end: these filters match {total} rows, {last} page(s).",
                hint=el(
                    "p",
                    el("a", "go to the last page", href=filters.link(info.id, page=last)),
                ),
            )
        rows = list(
            store.iter_rows(
                info.id,
                **filters.where,
                offset=(filters.page - 1) * filters.per_page,
                limit=filters.per_page,
                order_by=filters.sort,
            )
        )
        return HTMLResponse(routes.render_run(store, info, filters, rows, total, note))

    @app.get("/runs/{run_id}/charts/scores.svg")
    def scores_chart(run_id: str, metric: str) -> Response:
        from tooleval.report.charts import histogram_svg
        from tooleval.report.summary import run_counts

        info = cached_run(store, run_id)
        bins = {b.metric: b for b in run_counts(store, info).bins}
        if metric not in bins:
            raise InputError(f"run {info.id} has no metric {metric!r}", field="metric")
        b = bins[metric]
        svg = histogram_svg(
            counts=b.counts, threshold=b.threshold, title=f"{metric} ({sum(b.counts)} scored)"
        )
        return Response(str(svg), media_type="image/svg+xml")

    @app.get("/runs/{run_id}/export.{kind}")
    def export(
        run_id: str,
        kind: str,
        category: str | None = None,
        metric: str | None = None,
        result: str | None = None,
        failure_class: str | None = None,
        q: str | None = None,
        sort: str = "index",
    ) -> Response:
        from fastapi.responses import StreamingResponse

        from tooleval.web.export import EXPORT_TYPES, export_lines

        if kind not in EXPORT_TYPES:
            return error(404, "Not found", f"Exports are CSV or JSONL, not {kind!r}.")
        info = cached_run(store, run_id)
        filters, _ = routes.run_filters(
            info, category, metric, result, failure_class, q, sort, 1, 50
        )
        rows = store.iter_rows(info.id, **filters.where, order_by=filters.sort)
        name = f"{info.id}-rows.{kind}"
        return StreamingResponse(
            export_lines(kind, info, rows),
            media_type=EXPORT_TYPES[kind],
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    @app.get("/runs/{run_id}/rows/{index}", response_class=HTMLResponse)
    def row(
        run_id: str,
        index: int,
        category: str | None = None,
        metric: str | None = None,
        result: str | None = None,
        failure_class: str | None = None,
        q: str | None = None,
        sort: str = "failures",
        per_page: int = 50,
        pos: int | None = None,
    ) -> HTMLResponse:
        info = cached_run(store, run_id)
        record = None
        if 0 <= index <= _MAX_INDEX:
            try:
                record = store.get_row(info.id, index)
            except StoreError:
                record = None
        if record is None:
            return error(
                404,
                "No such row",
                f"Run {info.id} has no row {index} (it has {info.row_count} rows, numbered from 0).",
                hint=el("p", el("a", "back to the run", href=href("/runs", info.id))),
            )
        filters, _ = routes.run_filters(
            info, category, metric, result, failure_class, q, sort, 1, per_page
        )
        return HTMLResponse(routes.render_row(store, info, record, filters, pos))

    @app.get("/compare", response_class=HTMLResponse)
    def compare(
        a: str | None = None,
        b: str | None = None,
        change: str | None = None,
        metric: str | None = None,
        page: int = 1,
    ) -> HTMLResponse:
        return HTMLResponse(routes.render_compare(store, a, b, change, metric, page))

    @app.get("/compare/row", response_class=HTMLResponse)
    def compare_row(
        a: str,
        b: str,
        ia: int | None = None,
        ib: int | None = None,
        change: str | None = None,
        metric: str | None = None,
        pos: int | None = None,
    ) -> HTMLResponse:
        return HTMLResponse(
            routes.render_compare_row(store, a, b, ia, ib, change=change, metric=metric, pos=pos)
        )

    return app
