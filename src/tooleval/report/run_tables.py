"""Tables about a whole run: its header, the per-metric summary and the failure clusters.

Shared by the static report and the viewer, like :mod:`tooleval.report.components`.

>>> from tooleval.store.records import RunInfo
>>> "<h1>nightly</h1>" in run_header(RunInfo("r1", "nightly", "2026-11-29T10:00:00", "finished"))
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tooleval.analysis.figures import RunFigures
from tooleval.report.components import pct, score_text, value_text
from tooleval.report.html import Href, Safe, el, frag
from tooleval.report.intervals import interval_bar
from tooleval.store import StoreReader
from tooleval.store.records import RunInfo

__all__ = ["clusters_table", "live_status", "metric_summary_table", "run_header", "run_status"]

#: (text, kind): what a run is doing now; ``kind`` names its CSS class.
Status = tuple[str, str]


def live_status(run: RunInfo, holder: dict[str, Any] | None) -> Status:
    """A run's status with its lease: really running, or stopped and resumable.

    A run killed without a chance to mark itself stays ``running`` in the
    store; the lease (see :mod:`tooleval.store.leases`) says whether a live
    process still works it.

    >>> run = RunInfo("r1", "nightly", "2026-11-29T10:00:00", "running")
    >>> live_status(run, {"pid": 7, "host": "ci-3", "alive": True})
    ('running (pid 7 on ci-3)', 'running')
    >>> live_status(run, None)[1]
    'stopped'
    """
    if run.status != "running":
        return run.status, run.status
    if holder is not None and holder.get("alive"):
        return f"running (pid {holder['pid']} on {holder['host']})", "running"
    return "stopped: no live process (resume it with tooleval run PLAN --resume ID)", "stopped"


def run_status(store: StoreReader, run: RunInfo) -> Status:
    """:func:`live_status` of ``run``, its lease read from ``store`` (only when it is running)."""
    holder = store.lease_holder(run.id) if run.status == "running" else None
    return live_status(run, holder)


# ---------------------------------------------------------------- run tables


def _describe(value: dict[str, Any]) -> Safe:
    if not value:
        return el("span", "–", class_="muted")
    parts = [
        el(
            "span",
            el("span", f"{k}: ", class_="muted"),
            value_text(v, limit=120) if not isinstance(v, str) else v,
        )
        for k, v in value.items()
    ]
    return el("span", [frag(p, " ") for p in parts], class_="kv")


def run_header(
    run: RunInfo,
    status: Status | None = None,
    *,
    latency: dict[str, float] | None = None,
    gate: Any = None,
) -> Safe:
    """Name, id, status, gate, dataset, connector, counts, wall time, latency, tags, config.

    ``status`` comes from :func:`run_status`, ``latency`` from
    :func:`tooleval.report.overview.latency_percentiles`, ``gate`` from
    :func:`tooleval.analysis.gate.stored_gate`.
    """
    from tooleval.report.overview import config_table, gate_badge, wall_time

    text, kind = status or (run.status, run.status)
    took = wall_time(run)
    config = {k: v for k, v in run.config.items() if k != "gate"} if run.config else {}
    listed: list[tuple[str, Any] | None] = [
        ("run", el("code", run.id)),
        ("status", el("span", text, class_=f"status status-{kind}")),
        ("created", run.created_at[:19].replace("T", " ")),
        ("dataset", _describe(run.dataset)),
        ("connector", _describe(run.connector)),
        ("rows", f"{run.row_count} ({run.error_count} with errors)"),
        ("wall time", took) if took else None,
        (
            "latency per row",
            " · ".join(f"{k} {v:,.0f} ms" for k, v in latency.items()),
        )
        if latency
        else None,
        ("gate", gate_badge(gate)) if gate is not None else None,
        ("tags", frag(el("span", t, class_="tag") for t in run.tags) if run.tags else "–"),
        ("config", config_table(config)) if config else None,
    ]
    facts = [f for f in listed if f is not None]
    return el(
        "section",
        el("h1", run.name),
        el("dl", [frag(el("dt", k), el("dd", v)) for k, v in facts], class_="facts"),
        class_="run-header",
    )


def metric_summary_table(run: RunInfo, figures: RunFigures) -> Safe:
    """Per metric, from the run's read model: parameters, threshold, passed / failed / errors /
    unscored (in the figures' unit), mean score, pass rate (errors count as not passed) and its
    interval with the method's name."""
    specs = {m.name: m for m in run.metrics}
    unit = "attempts" if figures.k > 1 else "rows"
    head = el(
        "tr",
        *(
            el("th", h, class_=c)
            for h, c in (
                ("metric", None),
                ("parameters", None),
                ("threshold", "num"),
                (f"passed ({unit})", "num"),
                ("failed", "num"),
                ("errors", "num"),
                ("unscored", "num"),
                ("mean score", "num"),
                ("pass rate", "num"),
                (f"{figures.confidence:.0%} interval", None),
            )
        ),
    )
    body = []
    for name in figures.metrics:
        f = figures.get(name)
        if f is None:
            continue
        spec = specs.get(name)
        params = ", ".join(
            f"{k}={value_text(v, limit=80)}" for k, v in (spec.params if spec else {}).items()
        )
        threshold = spec.threshold if spec else None
        e = f.pass_rate
        body.append(
            el(
                "tr",
                el("td", el("strong", name)),
                el("td", params or "defaults", class_="params"),
                el("td", "–" if threshold is None else f"{threshold:g}", class_="num"),
                el("td", f.passed, class_="num"),
                el("td", f.failed, class_="num"),
                el("td", f.errors, class_="num errors"),
                el("td", f.unscored, class_="num"),
                el(
                    "td",
                    "–" if f.mean_score is None else score_text(f.mean_score.value),
                    class_="num",
                ),
                el("td", el("strong", pct(f.rate)), class_="num"),
                el(
                    "td",
                    el(
                        "div",
                        f"{e.bounds} {e.interval.method}, n={e.n} {figures.unit}",
                        class_="num-text small",
                    )
                    if e is not None
                    else None,
                    interval_bar(f.rate, None if e is None else e.interval),
                    class_="ci",
                ),
            )
        )
    return el("table", el("thead", head), el("tbody", body), class_="summary")


def clusters_table(
    clusters: Sequence[Any],
    *,
    failures: int,
    row_link: Callable[[str, int | None], Href | None],
    class_link: Callable[[str], Href | None] | None = None,
    examples: int = 5,
    rows_link: Callable[[Any], Href | None] | None = None,
) -> Safe:
    """Failure clusters, biggest first: class → count → what → categories → example rows.

    ``rows_link`` links a cluster's count to its rows (the viewer's filters).
    """
    if not clusters:
        return el("p", "No failing rows.", class_="ok")
    head = el(
        "tr",
        *(el("th", h) for h in ("class", "rows", "what", "categories", "example rows")),
    )
    body = []
    for cluster in clusters:
        target = class_link(cluster.failure_class) if class_link else None
        name = cluster.failure_class.replace("_", " ")
        indexes = list(cluster.indexes) or [None] * len(cluster.row_ids)
        links = []
        for row_id, index in list(zip(cluster.row_ids, indexes, strict=False))[:examples]:
            target_row = row_link(row_id, index)
            links.append(el("a", row_id, href=target_row) if target_row else el("span", row_id))
        more = cluster.count - len(links)
        body.append(
            el(
                "tr",
                el(
                    "td",
                    el("a", name, href=target) if target else el("strong", name),
                    el("div", cluster.hint, class_="muted small"),
                ),
                el(
                    "td",
                    el("a", cluster.count, href=rows_link(cluster)) if rows_link else cluster.count,
                    class_="num",
                ),
                el("td", cluster.detail, class_="what"),
                el("td", ", ".join(f"{c} {n}" for c, n in cluster.categories.items())),
                el(
                    "td",
                    frag(frag(link, " ") for link in links),
                    el("span", f"+{more} more", class_="muted") if more > 0 else None,
                ),
            )
        )
    plural = "" if len(clusters) == 1 else "s"
    return frag(
        el("p", f"{failures} failing rows → {len(clusters)} cluster{plural}", class_="lead"),
        el(
            "div",
            el("table", el("thead", head), el("tbody", body), class_="clusters"),
            class_="table-scroll",
            tabindex="0",
        ),
    )
