"""The local viewer: a FastAPI app over the run store's public read API.

Server-rendered HTML, one stylesheet and one small script served from the
package, no CDN. Every response, error pages included, carries a strict
Content-Security-Policy (no inline script, no inline style, nothing from
other origins), so even a markup bug could not run a row's ``<script>``.

Only requests addressed to the viewer's own names are answered (``Host``
127.0.0.1, localhost, [::1] or the ``--host`` it listens on): a page on
another site that rebinds its DNS name to 127.0.0.1 gets a 400, not run data.

Every page answers ``HEAD`` as well as ``GET``; ``/favicon.ico`` is the
viewer's icon. A run in a URL may be named as the CLI names it (``latest``,
``-2``, a unique id prefix): the viewer redirects to the run's full id.

Pages: ``/`` runs, ``/runs/{id}`` one run (filters, sort, pages of rows;
numbers above the rows from the stored aggregates), ``/runs/{id}/rows/{index}``
one row, ``/runs/{id}/export.csv|jsonl`` the filtered rows,
``/compare?a=&b=`` two runs, ``/compare/row?a=&b=&ia=&ib=`` one row of both.
"""

import dataclasses
from collections.abc import Callable, Mapping
from importlib import resources
from typing import Any

from tooleval.errors import InputError, StoreError
from tooleval.store import StoreReader

__all__ = ["CHART_CSP", "CSP", "LOCAL_HOSTS", "SECURITY_HEADERS", "allowed_host", "create_app"]

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
_STATIC = {
    "style.css": "text/css",
    "viewer.js": "text/javascript",
    "favicon.svg": "image/svg+xml",
}
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
        # The shared stylesheet, then the viewer's own rules (filter chips, state diffs, ...).
        shared = resources.files("tooleval.report").joinpath(name).read_text(encoding="utf-8")
        own = resources.files("tooleval.web").joinpath("static", "viewer.css")
        return shared + "\n" + own.read_text(encoding="utf-8")
    return resources.files("tooleval.web").joinpath("static", name).read_text(encoding="utf-8")


def create_app(
    store: StoreReader,
    *,
    host: str | None = None,
    allow_labels: bool = False,
    calibrations: Callable[[Any, Any], Mapping[str, str | None]] | None = None,
) -> Any:
    """The viewer as a FastAPI app reading ``store`` (tests drive it with TestClient).

    ``host`` is the address the viewer listens on; requests must name it (or
    127.0.0.1, localhost, [::1]) in their ``Host`` header. ``allow_labels``
    lets row pages store human labels (:mod:`tooleval.web.labels`).
    ``calibrations(store, run)`` (``tooleval.calibration.gate_calibrations``, passed by
    ``tooleval view``) gives a run page its judged rates corrected for the judge's error.
    """
    from fastapi import FastAPI

    from tooleval.web.labels import LabelWriting, register_label_routes

    app = FastAPI(title="tooleval viewer", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.store = store
    app.state.labels = LabelWriting.start() if allow_labels else None
    app.state.calibrations = calibrations
    _guard(app, _host_names(host))
    _error_pages(app)
    _static_routes(app)
    _run_routes(app, store)
    _row_routes(app, store)
    _compare_routes(app, store)
    register_label_routes(app, store, app.state.labels)
    return app


# A chart is an SVG document of its own: its one inline <style> maps the
# colours to the dark theme (it holds no script and loads nothing).
CHART_CSP = "default-src 'none'; style-src 'unsafe-inline'"


def _secure(response: Any) -> Any:
    for key, value in SECURITY_HEADERS.items():
        if key == "Content-Security-Policy" and response.headers.get(key) == CHART_CSP:
            continue
        response.headers[key] = value
    return response


def _error(status: int, title: str, message: str, hint: Any = None) -> Any:
    from fastapi.responses import HTMLResponse

    from tooleval.web import pages

    return _secure(
        HTMLResponse(pages.error_page(status, title, message, hint=hint), status_code=status)
    )


def _guard(app: Any, names: frozenset[str]) -> None:
    """Refuse foreign hosts, add the security headers, answer HEAD as GET without a body."""
    from fastapi import Request
    from fastapi.responses import Response

    @app.middleware("http")
    async def guard(request: Request, call_next: Any) -> Any:
        if not allowed_host(request.headers.get("host"), names):
            shown = ", ".join(sorted(names))
            return _error(
                400,
                "Unknown host",
                f"This viewer answers only to {shown}; open it at one of those addresses.",
            )
        if request.method != "HEAD":
            return _secure(await call_next(request))
        request.scope["method"] = "GET"
        full = await call_next(request)
        headers = {k: v for k, v in full.headers.items() if k.lower() != "content-length"}
        return _secure(Response(status_code=full.status_code, headers=headers))


def _error_pages(app: Any) -> None:
    """Every error as a page saying what to do next (never a stack trace)."""
    from fastapi import Request
    from fastapi.exceptions import RequestValidationError
    from starlette.exceptions import HTTPException as StarletteHTTPException

    from tooleval.report.html import el

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Any:
        if exc.status_code == 404:
            return _error(404, "Not found", f"There is no page at {request.url.path}.")
        return _error(exc.status_code, "Error", str(exc.detail))

    @app.exception_handler(RequestValidationError)
    async def bad_query(request: Request, exc: RequestValidationError) -> Any:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e.get('loc', ())[1:])}: {e.get('msg')}"
            for e in exc.errors()
        )
        return _error(400, "Bad request", f"Some values in the address are not valid: {problems}.")

    @app.exception_handler(StoreError)
    async def store_error(request: Request, exc: StoreError) -> Any:
        return _error(
            404, "Not found", str(exc), hint=el("p", "The runs list shows every stored run.")
        )

    @app.exception_handler(InputError)
    async def input_error(request: Request, exc: InputError) -> Any:
        return _error(400, "Bad request", str(exc))

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> Any:
        # Outside the middleware: this page adds its own security headers.
        return _error(
            500,
            "Something went wrong",
            f"The viewer could not build this page ({type(exc).__name__}). "
            "The terminal running `tooleval view` has the details.",
        )


def _static_routes(app: Any) -> None:
    from fastapi.responses import Response

    def static_file(name: str) -> Response:
        if name not in _STATIC:
            return _error(404, "Not found", f"There is no static file {name!r}.")
        return Response(
            _static_text(name),
            media_type=_STATIC[name],
            headers={"Cache-Control": "max-age=300"},
        )

    app.get("/static/{name}")(static_file)
    app.get("/favicon.ico")(lambda: static_file("favicon.svg"))


def _opened(request: Any, store: StoreReader, ref: str) -> tuple[Any, Any]:
    """The run ``ref`` names, and a redirect to this page under its full id if ``ref`` is an alias."""
    from fastapi.responses import RedirectResponse

    from tooleval.analysis.aggregates import cached_run
    from tooleval.report.html import href
    from tooleval.web.routes import resolve_ref

    info = cached_run(store, resolve_ref(store, ref))
    if ref == info.id:
        return info, None
    path = request.url.path
    at = path.index("/runs/") + len("/runs/")
    rest = path[at:].split("/", 1)
    target = str(href("/runs", info.id)) + ("/" + rest[1] if len(rest) > 1 else "")
    query = request.url.query
    return info, RedirectResponse(target + (f"?{query}" if query else ""), status_code=307)


def _run_routes(app: Any, store: StoreReader) -> None:
    """The runs list, a run's page, its chart and its exports."""
    from fastapi import Depends, Request
    from fastapi.responses import HTMLResponse, Response

    from tooleval.analysis.aggregates import cached_run
    from tooleval.web import routes
    from tooleval.web.row_query import ExportQuery, RowQuery

    @app.get("/", response_class=HTMLResponse)
    def runs(request: Request, q: str | None = None, tag: str | None = None) -> HTMLResponse:
        lookup = request.app.state.calibrations
        return HTMLResponse(routes.render_runs(store, q, tag, calibrations=lookup))

    @app.get("/runs/{run_id}", response_class=HTMLResponse)
    def run(
        request: Request,
        run_id: str,
        rows: RowQuery = Depends(),  # noqa: B008 - FastAPI's way to read a dependency
        page: int = 1,
        per_page: int = 50,
        what: str | None = None,
        after: int | None = None,
        before: int | None = None,
        end: bool = False,
    ) -> Any:
        info, moved = _opened(request, store, run_id)
        if moved is not None:
            return moved
        filters, note = rows.filters(info, page=page, per_page=per_page)
        filters = dataclasses.replace(filters, after=after, before=before, end=end)
        lookup = request.app.state.calibrations
        judged = lookup(store, info) if lookup is not None else None
        found = routes.run_view(store, info, filters, note, what=what, calibrations=judged)
        if isinstance(found, int):
            return _past_the_end(info.id, filters, page, found)
        return HTMLResponse(found)

    @app.get("/runs/{run_id}/charts/scores.svg")
    def scores_chart(run_id: str, metric: str) -> Response:
        info = cached_run(store, routes.resolve_ref(store, run_id))
        return Response(
            routes.scores_svg(store, info, metric),
            media_type="image/svg+xml",
            headers={"Content-Security-Policy": CHART_CSP},
        )

    @app.get("/runs/{run_id}/export.{kind}")
    def export(
        run_id: str,
        kind: str,
        rows: ExportQuery = Depends(),  # noqa: B008 - FastAPI's way to read a dependency
    ) -> Response:
        from fastapi.responses import StreamingResponse

        from tooleval.web.export import EXPORT_TYPES, export_lines

        if kind not in EXPORT_TYPES:
            return _error(404, "Not found", f"Exports are CSV or JSONL, not {kind!r}.")
        info = cached_run(store, routes.resolve_ref(store, run_id))
        filters, _ = rows.filters(info)
        records = store.iter_rows(info.id, **filters.where, order_by=filters.sort)
        name = f"{info.id}-rows.{kind}"
        return StreamingResponse(
            export_lines(kind, info, records),
            media_type=EXPORT_TYPES[kind],
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )


def _past_the_end(run_id: str, filters: Any, page: int, total: int) -> Any:
    from tooleval.report.html import el

    last = max(1, -(-total // filters.per_page))
    return _error(
        404,
        "No such page",
        f"Page {page} is past the end: these filters match {total} rows, {last} page(s).",
        hint=el("p", el("a", "go to the last page", href=filters.link(run_id, page=last))),
    )


def _row_routes(app: Any, store: StoreReader) -> None:
    """One row of a run, with its neighbours in the view it was opened from."""
    from fastapi import Depends, Request
    from fastapi.responses import HTMLResponse

    from tooleval.report.html import el, href
    from tooleval.web import routes
    from tooleval.web.labels import label_section
    from tooleval.web.row_query import RowQuery

    @app.get("/runs/{run_id}/rows/{index}", response_class=HTMLResponse)
    def row(
        request: Request,
        run_id: str,
        index: int,
        rows: RowQuery = Depends(),  # noqa: B008 - FastAPI's way to read a dependency
        per_page: int = 50,
        pos: int | None = None,
    ) -> Any:
        info, moved = _opened(request, store, run_id)
        if moved is not None:
            return moved
        record = None
        if 0 <= index <= _MAX_INDEX:
            try:
                record = store.get_row(info.id, index)
            except StoreError:
                record = None
        if record is None:
            return _error(
                404,
                "No such row",
                f"Run {info.id} has no row {index} (it has {info.row_count} rows, numbered from 0).",
                hint=el("p", el("a", "back to the run", href=href("/runs", info.id))),
            )
        filters, _ = rows.filters(info, per_page=per_page)
        labels = label_section(store, info, record, request.app.state.labels)
        return HTMLResponse(routes.render_row(store, info, record, filters, pos, labels=labels))


def _compare_routes(app: Any, store: StoreReader) -> None:
    """Two runs (or more, as a matrix) and one row of two runs side by side."""
    from fastapi import Query
    from fastapi.responses import HTMLResponse

    from tooleval.web import compare_routes

    @app.get("/compare", response_class=HTMLResponse)
    def compare(
        a: str | None = None,
        b: str | None = None,
        change: str | None = None,
        metric: str | None = None,
        page: int = 1,
        run: list[str] = Query(default=[]),  # noqa: B008 - FastAPI's way to read ?run=&run=
    ) -> HTMLResponse:
        if run:
            return HTMLResponse(compare_routes.render_matrix(store, run, page))
        return HTMLResponse(compare_routes.render_compare(store, a, b, change, metric, page))

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
            compare_routes.render_compare_row(
                store, a, b, ia, ib, change=change, metric=metric, pos=pos
            )
        )
