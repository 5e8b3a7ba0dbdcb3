"""A run's overview facts: the gate verdict, wall time, latency percentiles, config as a table.

Shared by the static report and the viewer (the run list shows the gate
verdict too). The gate is the one the run's plan set
(:func:`tooleval.analysis.gate.stored_gate`); the verdict names each rule
that failed and its figure ("f1: pass rate 63.6% < 90.0%").

>>> from tooleval.store.records import RunInfo
>>> wall_time(RunInfo("r", "n", "2026-11-29T10:00:00Z", "finished",
...                   finished_at="2026-11-29T10:02:05Z"))
'2 min 5 s'
>>> flat_config({"gate": {"min_pass_rate": 0.9}, "prompt": "v2"})
[('gate.min_pass_rate', 0.9), ('prompt', 'v2')]
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tooleval.report.components import value_text
from tooleval.report.html import Safe, el
from tooleval.store import StoreReader
from tooleval.store.records import RunInfo

__all__ = [
    "config_table",
    "flat_config",
    "gate_badge",
    "gate_block",
    "latency_percentiles",
    "wall_time",
]


def _when(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def wall_time(run: RunInfo) -> str | None:
    """How long the run took, start to finish (None while it runs or when unknown)."""
    start, end = _when(run.created_at), _when(run.finished_at)
    if start is None or end is None:
        return None
    if (start.tzinfo is None) != (end.tzinfo is None):
        start, end = start.replace(tzinfo=None), end.replace(tzinfo=None)
    seconds = max(0.0, (end - start).total_seconds())
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {rest} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min"


def latency_percentiles(store: StoreReader, run: RunInfo) -> dict[str, float] | None:
    """p50 and p95 of the rows' latency from the run's read model (None if no row has one).

    A stopped run's figures are stored with it
    (:func:`tooleval.analysis.figures.run_figures`), so a view reads them back
    instead of ordering a million latencies.
    """
    from tooleval.analysis.figures import run_figures

    return dict(run_figures(store, run).latency) or None


def flat_config(config: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """A nested config as ``(dotted key, value)`` pairs, in key order."""
    if not isinstance(config, dict) or not config:
        return [(prefix, config)] if prefix else []
    pairs: list[tuple[str, Any]] = []
    for key in sorted(config, key=str):
        name = f"{prefix}.{key}" if prefix else str(key)
        value = config[key]
        if isinstance(value, dict) and value:
            pairs += flat_config(value, name)
        else:
            pairs.append((name, value))
    return pairs


def config_table(config: dict[str, Any]) -> Safe:
    """The run's config (plan settings) as a two-column table, nested keys dotted."""
    pairs = [(k, v) for k, v in flat_config(config) if v is not None]
    if not pairs:
        return el("span", "–", class_="muted")
    body = [
        el(
            "tr",
            el("th", el("code", key), scope="row"),
            el("td", value if isinstance(value, str) else value_text(value, limit=300)),
        )
        for key, value in pairs
    ]
    return el(
        "div", el("table", el("tbody", body), class_="config"), class_="table-scroll", tabindex="0"
    )


def gate_badge(gate: Any) -> Safe:
    """``gate passed`` / ``gate failed: <first failing rule>`` in one line (run list)."""
    if gate is None:
        return el("span", "no gate", class_="muted small")
    if gate.passed:
        return el("span", "gate passed", class_="gate gate-pass")
    failing = [c for c in gate.checks if not c.passed]
    more = f" (+{len(failing) - 1} more)" if len(failing) > 1 else ""
    return el(
        "span",
        el("span", "gate failed", class_="gate gate-fail"),
        el("span", f" {failing[0].message}{more}", class_="small"),
    )


def gate_block(gate: Any, *, level: int = 2) -> Safe:
    """The gate verdict with every rule it checked and the figure each one read."""
    if gate is None:
        return Safe("")
    items = [
        el(
            "li",
            el(
                "span",
                "pass" if c.passed else "fail",
                class_=f"badge badge-{'pass' if c.passed else 'fail'}",
            ),
            " ",
            c.message,
        )
        for c in gate.checks
    ]
    verdict = "Gate passed" if gate.passed else "Gate failed"
    return el(
        "section",
        el(f"h{level}", verdict, class_=f"gate-title gate-{'pass' if gate.passed else 'fail'}"),
        el("ul", items, class_="gate-checks"),
        class_="gate-block",
        aria_label="gate verdict",
    )
