"""A Markdown summary of a run for a GitHub step summary or a pull-request comment.

Pass rate per metric (error rows counted as not passed), errors, the gate
verdict, regressions against a baseline run, the top failure clusters with
an example row each, and pass^k / pass@k with the flaky rows of a repeated
run. Everything an agent produced (row ids, tool names, error text) is
escaped: a reply cannot inject Markdown, HTML or mentions into the comment.

>>> md_text("a|b <script> @team `x`\\nnext")
'a\\\\|b &lt;script&gt; @\\u200bteam \\\\`x\\\\` next'
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tooleval.analysis.figures import RunFigures
from tooleval.store import StoreReader
from tooleval.store.records import RunInfo

__all__ = ["md_text", "run_summary_markdown", "write_summary", "step_summary_path"]

_CLIP = 160


def md_text(value: Any, limit: int = _CLIP) -> str:
    """One line of untrusted text made inert for GitHub Markdown (tables included)."""
    text = " ".join("".join(c if c.isprintable() else " " for c in str(value)).split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    for char in "\\`*_[]|#~":
        text = text.replace(char, "\\" + char)
    return text.replace("@", "@\u200b")


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _metric_table(figures: RunFigures) -> list[str]:
    """Each metric's figures from the run's read model (error rows count as not passed)."""
    lines = [
        "| metric | pass rate | 95% interval | passed | failed | errors | unscored | mean score |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name in figures.metrics:
        f = figures.get(name)
        if f is None:
            continue
        mean = "n/a" if f.mean_score is None else f"{f.mean_score.value:.3f}"
        interval = "n/a"
        if f.pass_rate is not None:
            e = f.pass_rate
            interval = f"{e.bounds} {e.interval.method}, n={e.n}, K={e.attempts[1]}"
        lines.append(
            f"| {md_text(name)} | {_pct(f.rate)} | {interval} | {f.passed} | {f.failed} "
            f"| {f.errors} | {f.unscored} | {mean} |"
        )
    return lines


def _gate_lines(gate: Any) -> list[str]:
    if gate is None:
        return []
    verdict = "✅ gate passed" if gate.passed else "❌ gate failed"
    lines = [f"**{verdict}**", ""]
    lines += [f"- {'✅' if c.passed else '❌'} {md_text(c.message, 300)}" for c in gate.checks]
    return [*lines, ""]


def _regression_lines(store: StoreReader, run: RunInfo, baseline: str, limit: int) -> list[str]:
    from tooleval.analysis.compare import compare_runs
    from tooleval.analysis.figures import run_figures
    from tooleval.analysis.stat_lines import compare_line

    sides = (run_figures(store, store.get_run(baseline)), run_figures(store, run))
    comparison = compare_runs(store, baseline, run.id, figures=sides, statistics={})
    regressed = comparison.changed("regressed")
    fixed = comparison.changed("fixed")
    lines = [
        f"### Against baseline `{md_text(baseline)}`",
        "",
        f"{len(regressed)} row × metric regressed, {len(fixed)} fixed ({comparison.unit}).",
        "",
    ]
    stats = [c for c in comparison.statistics if c.slice == "(all)"]
    lines += [f"- **{md_text(c.metric)}**: {compare_line(c)}" for c in stats]
    lines += [f"- {md_text(t.text, 300)}" for t in comparison.too_small]
    lines += [""] if stats else []
    if comparison.differences:
        changed = ", ".join(f"`{md_text(d.path)}`" for d in comparison.differences[:8])
        lines += [f"Configuration differences: {changed}", ""]
    if regressed:
        lines += ["| row | metric | category | score before → after |", "|---|---|---|---|"]
        for delta in regressed[:limit]:
            before = "n/a" if delta.score_a is None else f"{delta.score_a:.2f}"
            after = "n/a" if delta.score_b is None else f"{delta.score_b:.2f}"
            lines.append(
                f"| {md_text(delta.row_id)} | {md_text(delta.metric)} "
                f"| {md_text(delta.category or '')} | {before} → {after} |"
            )
        if len(regressed) > limit:
            lines.append(f"| … {len(regressed) - limit} more | | | |")
        lines.append("")
    return lines


def _cluster_lines(clusters: Sequence[Any], failures: int, limit: int) -> list[str]:
    if not clusters:
        return []
    lines = [
        f"### Top failure clusters ({failures} failing rows → {len(clusters)} causes)",
        "",
        "| rows | class | what | example row |",
        "|---:|---|---|---|",
    ]
    for cluster in clusters[:limit]:
        lines.append(
            f"| {cluster.count} | {md_text(cluster.failure_class)} | {md_text(cluster.detail)} "
            f"| {md_text(cluster.example or '')} |"
        )
    if len(clusters) > limit:
        lines.append(f"| … | {len(clusters) - limit} more clusters | | |")
    return [*lines, ""]


def _repeat_lines(summary: Any, limit: int) -> list[str]:
    n = summary.n
    lines = [
        f"### Repeats: {n} attempts per row",
        "",
        "| | " + " | ".join(f"k={k}" for k in range(1, n + 1)) + " |",
        "|---|" + "---:|" * n,
        "| pass^k | " + " | ".join(_pct(summary.pass_hat(k)) for k in range(1, n + 1)) + " |",
        "| pass@k | " + " | ".join(_pct(summary.pass_at(k)) for k in range(1, n + 1)) + " |",
        "",
    ]
    flaky = summary.flaky
    lines.append(f"{len(flaky)} flaky rows (passed on some attempts, failed on others)")
    for row in flaky[:limit]:
        lines.append(f"- {md_text(row.row_id)}: {row.passed}/{row.attempts} passed")
    return [*lines, ""]


def run_summary_markdown(
    store: StoreReader,
    run_id: str,
    *,
    gate: Any = None,
    baseline: str | None = None,
    clusters: int = 5,
    rows: int = 10,
) -> str:
    """The Markdown summary of a stored run (``baseline`` another run id to compare with)."""
    from tooleval.analysis.clusters import cluster_failures
    from tooleval.analysis.figures import run_figures
    from tooleval.analysis.gate import stored_gate
    from tooleval.analysis.repeats import summarise_run

    run = store.get_run(run_id)
    all_rows = list(store.iter_rows(run.id))
    found = cluster_failures(all_rows)
    failing = sum(c.count for c in found)
    total_passed = sum(1 for r in all_rows if r.error is None and r.passed)
    overall = total_passed / len(all_rows) if all_rows else None
    lines = [
        f"## tooleval run `{md_text(run.name)}` ({md_text(run.id)})",
        "",
        f"{run.row_count} rows, {_pct(overall)} passed every metric, {run.error_count} errors "
        f"(the agent could not be called or the row not read); status {md_text(run.status)}.",
        "",
        *_metric_table(run_figures(store, run)),
        "",
        # No gate given: the one the run's plan set (stored with the run), if any.
        *_gate_lines(gate if gate is not None else stored_gate(run, store=store)),
    ]
    if baseline is not None:
        lines += _regression_lines(store, run, store.resolve_run_id(baseline), rows)
    lines += _cluster_lines(found, failing, clusters)
    repeats = summarise_run(store, run)
    if repeats is not None:
        lines += _repeat_lines(repeats, rows)
    lines.append(f"Details: `tooleval runs show {md_text(run.id)}`")
    return "\n".join(lines) + "\n"


def step_summary_path() -> Path | None:
    """``$GITHUB_STEP_SUMMARY`` when a GitHub Actions step sets it (non-empty)."""
    value = os.environ.get("GITHUB_STEP_SUMMARY", "").strip()
    return Path(value) if value else None


def write_summary(text: str, path: str | Path | None, *, append_step_summary: bool = True) -> None:
    """Write ``text`` to ``path`` (atomically) and append it to ``$GITHUB_STEP_SUMMARY``."""
    from tooleval.io_atomic import atomic_write

    if path is not None:
        with atomic_write(Path(path)) as handle:
            handle.write(text.encode("utf-8"))
    step = step_summary_path() if append_step_summary else None
    if step is not None and (path is None or Path(path).resolve() != step.resolve()):
        with step.open("a", encoding="utf-8") as handle:  # GitHub appends steps' summaries
            handle.write(text)
