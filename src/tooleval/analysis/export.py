"""Write a stored run for CI: JUnit XML (one testcase per row × metric) and full JSON.

JUnit mapping: a passed result is a plain testcase; a failed one carries a
``<failure>`` with the reason and the diagnosis (missing / extra / order /
arguments, expected vs actual); an unscored one is ``<skipped>`` with the
reason; a row whose agent call failed is an ``<error>`` with the cause.

Every text from the agent or the dataset goes through
:func:`tooleval.textsafe.xml_safe`: ANSI escapes removed, XML-illegal
characters and bidi overrides shown as visible escapes, so ElementTree,
junitparser, GitLab and Jenkins read the file. Files are written atomically
(a temporary file renamed into place): a failed export leaves nothing.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tooleval.analysis.figures import RunFigures
from tooleval.analysis.gate import GateResult
from tooleval.model import Result, ToolCall
from tooleval.model.usage import JudgeUsage
from tooleval.store import StoreReader
from tooleval.store.records import RowRecord, RunInfo
from tooleval.textsafe import xml_safe as _x

__all__ = ["describe_diagnosis", "junit_tree", "row_to_dict", "write_json", "write_junit"]


def describe_diagnosis(result: Result) -> list[str]:
    """Readable lines for a result's diagnosis, expected before actual.

    >>> from tooleval.model import ArgumentCheck, Diagnosis
    >>> d = Diagnosis(missing=[{"name": "refund", "args": {"amount": 30}, "index": 1}],
    ...               arguments=[ArgumentCheck("refund", "amount", 30, 300, 0.0)])
    >>> describe_diagnosis(Result.scored("m", 0.5, reason="", diagnosis=d))
    ['missing call: refund(amount=30)', 'argument refund.amount: expected 30, got 300']
    """
    d = result.diagnosis
    lines = [f"missing call: {_call_text(c)}" for c in d.missing]
    lines += [f"extra call: {_call_text(c)}" for c in d.extra]
    lines += [f"order: {v}" for v in d.order_violations]
    for check in d.argument_mismatches:
        actual = "(not passed)" if check.missing else repr(check.actual)
        lines.append(
            f"argument {check.tool}.{check.key}: expected {check.expected!r}, got {actual}"
        )
    return lines


def _call_text(call: dict[str, Any]) -> str:
    args = call.get("args")
    if args is None:
        return str(call.get("name"))
    inner = ", ".join(f"{k}={v!r}" for k, v in args.items())
    return f"{call.get('name')}({inner})"


def _interval_properties(figures: RunFigures, props: dict[str, ET.Element], gate: Any) -> None:
    """Each suite's pass rate with its interval (the run's read model) and its gate outcome."""
    for metric, element in props.items():
        found = figures.get(metric)
        e = found.pass_rate if found is not None else None
        if found is not None and e is not None:
            for name, value in (
                ("pass_rate", f"{e.value:.6f}"),
                ("pass_rate_low", f"{e.interval.low:.6f}"),
                ("pass_rate_high", f"{e.interval.high:.6f}"),
                ("confidence", f"{e.interval.confidence:g}"),
                ("interval_method", e.interval.method),
                ("rows", str(e.n)),
                ("attempts_per_row", str(e.attempts[1])),
                ("errors", str(found.errors)),
                ("unscored", str(found.unscored)),
            ):
                ET.SubElement(element, "property", name=name, value=value)
        for check in getattr(gate, "checks", ()):
            if check.name == metric:
                outcome = check.outcome or ("pass" if check.passed else "fail")
                ET.SubElement(element, "property", name="gate", value=_x(outcome))
                ET.SubElement(element, "property", name="gate_check", value=_x(check.message))
                _gate_check_properties(element, check)


def _gate_check_properties(element: ET.Element, check: Any) -> None:
    """A gate check's figures as properties: what, value, interval, n, K, threshold, rule."""
    i = check.interval
    values = {
        "gate_what": check.what or None,
        "gate_value": None if check.value is None else f"{check.value:.6f}",
        "gate_threshold": f"{check.required:.6f}",
        "gate_low": None if i is None else f"{i.low:.6f}",
        "gate_high": None if i is None else f"{i.high:.6f}",
        "gate_confidence": None if i is None else f"{i.confidence:g}",
        "gate_rows": None if check.n is None else str(check.n),
        "gate_attempts_per_row": None if check.attempts is None else str(check.attempts[1]),
        "gate_rule": check.rule,
        "gate_on_uncertain": check.on_uncertain,
    }
    for name, value in values.items():
        if value is not None:
            ET.SubElement(element, "property", name=name, value=_x(value))


def junit_tree(
    run: RunInfo, rows: Iterable[RowRecord], *, figures: RunFigures, gate: Any = None
) -> ET.ElementTree:
    """The JUnit XML document for a run: one ``<testsuite>`` per metric.

    Each suite's properties carry the metric's pass rate with its interval from
    the run's read model ``figures`` (docs/statistics.md) and, with ``gate``,
    that metric's gate outcome.
    """
    suites: dict[str, ET.Element] = {}
    props_of: dict[str, ET.Element] = {}
    counts: dict[str, dict[str, float]] = {}
    root = ET.Element("testsuites", name=_x(f"tooleval {run.name}"))
    for spec in run.metrics:
        suite = ET.SubElement(
            root,
            "testsuite",
            name=_x(f"{run.name}.{spec.name}"),
            # The JUnit schema's timestamp has no zone; stored times are UTC.
            timestamp=run.created_at[:19],
            hostname="localhost",
        )
        props = ET.SubElement(suite, "properties")
        ET.SubElement(props, "property", name="run_id", value=run.id)
        ET.SubElement(props, "property", name="metric", value=_x(spec.name))
        if spec.threshold is not None:
            ET.SubElement(props, "property", name="threshold", value=str(spec.threshold))
        suites[spec.name] = suite
        props_of[spec.name] = props
        counts[spec.name] = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
    for row in rows:
        for result in row.results:
            metric_suite = suites.get(result.metric)
            if metric_suite is None:
                continue
            tally = counts[result.metric]
            seconds = (row.latency_ms or 0.0) / 1000.0
            case = ET.SubElement(
                metric_suite,
                "testcase",
                classname=_x(f"{run.name}.{result.metric}"),
                name=_x(f"{row.row_id}" + (f" [{row.category}]" if row.category else "")),
                time=f"{seconds:.3f}",
            )
            tally["tests"] += 1
            tally["time"] += seconds
            if row.error:
                message = _x(row.error)
                element = ET.SubElement(case, "error", message=message, type="connector_error")
                element.text = message
                tally["errors"] += 1
            elif result.passed is None:
                ET.SubElement(case, "skipped", message=_x(result.reason or "not scored"))
                tally["skipped"] += 1
            elif not result.passed:
                element = ET.SubElement(
                    case,
                    "failure",
                    message=_x(result.reason or "below threshold"),
                    type=_x(row.failure_class or "failed"),
                )
                threshold = "1.0" if result.threshold is None else f"{result.threshold:g}"
                lines = [
                    f"score {result.score:.3f} < threshold {threshold}",
                    f"expected: {_names(row, expected=True)}",
                    f"actual:   {_names(row, expected=False)}",
                    *describe_diagnosis(result),
                ]
                element.text = _x("\n".join(lines))
                tally["failures"] += 1
    _interval_properties(figures, props_of, gate)
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
    for name, suite in suites.items():
        for key, value in counts[name].items():
            suite.set(key, f"{value:.3f}" if key == "time" else str(int(value)))
            totals[key] += value
    for key, value in totals.items():
        root.set(key, f"{value:.3f}" if key == "time" else str(int(value)))
    ET.indent(root)
    return ET.ElementTree(root)


def _names(row: RowRecord, *, expected: bool) -> str:
    if expected:
        calls: Sequence[ToolCall] | None = (
            row.sample.expected_tools.calls if row.sample.expected_tools is not None else None
        )
        if calls is None:
            return "(not bound)"
    else:
        calls = row.sample.actual_calls()
    return ", ".join(str(c) for c in calls) if calls else "(none)"


def write_junit(path: str | Path, store: StoreReader, run: RunInfo, *, gate: Any = None) -> Path:
    """Write the run as JUnit XML to ``path``; return the path."""
    from tooleval.analysis.figures import run_figures
    from tooleval.io_atomic import atomic_write

    target = Path(path)
    tree = junit_tree(run, store.iter_rows(run.id), figures=run_figures(store, run), gate=gate)
    with atomic_write(target) as handle:
        tree.write(handle, encoding="utf-8", xml_declaration=True)
    return target


def row_to_dict(row: RowRecord) -> dict[str, Any]:
    """A stored row as JSON data (what ``--json`` writes per row)."""
    return {
        "index": row.index,
        "row_id": row.row_id,
        "category": row.category,
        "passed": row.passed,
        "failure_class": row.failure_class,
        "error": row.error,
        "latency_ms": row.latency_ms,
        "sample": row.sample.to_dict(),
        "raw_response": row.raw_response,
        "results": [r.to_dict() for r in row.results],
    }


def run_to_dict(run: RunInfo, figures: RunFigures) -> dict[str, Any]:
    """The run header with each metric's counts and rates from the read model ``figures``."""

    def summary(name: str) -> dict[str, Any]:
        f = figures.get(name)
        if f is None:
            return {}
        mean = None if f.mean_score is None else f.mean_score.value
        scored = f.passed + f.failed
        return {
            "scored": scored,
            "passed": f.passed,
            "failed": f.failed,
            "unscored": f.unscored,
            # errors count as not passed (docs/runs.md); these counts are in `unit`
            "errors": f.errors,
            "unit": f.unit,
            "pass_rate": f.rate,
            "pass_rate_interval": None if f.pass_rate is None else f.pass_rate.interval.to_dict(),
            "rows": None if f.pass_rate is None else f.pass_rate.n,
            "mean_score": mean,
        }

    return {
        "id": run.id,
        "name": run.name,
        "status": run.status,
        "created_at": run.created_at,
        "finished_at": run.finished_at,
        "tags": list(run.tags),
        "dataset": run.dataset,
        "connector": run.connector,
        "config": run.config,
        "metrics": [m.to_dict() for m in run.metrics],
        "row_count": run.row_count,
        "error_count": run.error_count,
        "summaries": {name: summary(name) for name in figures.metrics},
        "figures": figures.to_payload(),
    }


def judge_usage(rows: Iterable[RowRecord]) -> dict[str, Any] | None:
    """Judge calls, cache hits, tokens and latency summed over a run's rows.

    ``None`` when no row carries judge usage (no judged metric ran); else the
    :meth:`tooleval.model.usage.JudgeUsage.to_dict` of the total.

    >>> from tooleval.model import Diagnosis, Result
    >>> usage = {"calls": 1, "cached_calls": 0, "tokens_in": 5, "tokens_out": 2, "latency_ms": 1.5}
    >>> judged = Result.scored("m", 1.0, reason="", diagnosis=Diagnosis(details={"judge": usage}))
    >>> judge_usage([RowRecord("r", 0, "x", None, (judged, judged))])["tokens_in"]
    10
    """
    total = JudgeUsage.from_results(result for row in rows for result in row.results)
    return None if total is None else total.to_dict()


def write_json(
    path: str | Path, store: StoreReader, run: RunInfo, *, gate: GateResult | None = None
) -> Path:
    """Write the run header (its read model's figures), the gate verdict and every row."""
    import orjson

    from tooleval.analysis.figures import run_figures
    from tooleval.analysis.repeats import analyse_repeats, repeat_of

    rows = list(store.iter_rows(run.id))
    repeated = repeat_of(run)
    document = {
        "run": run_to_dict(run, run_figures(store, run)),
        "gate": gate.to_dict() if gate is not None else None,
        # --repeat: pass^k / pass@k per k and category, flaky rows, per-row spread
        "repeats": analyse_repeats(rows, *repeated).to_dict() if repeated else None,
        "judge_usage": judge_usage(rows),
        "exported_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "rows": [row_to_dict(r) for r in rows],
    }
    from tooleval.io_atomic import atomic_write

    target = Path(path)
    data = orjson.dumps(document, default=str, option=orjson.OPT_INDENT_2)
    with atomic_write(target) as handle:
        handle.write(data)
    return target
