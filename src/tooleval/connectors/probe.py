"""Send one request and judge the plumbing (behind ``tooleval connector test``).

The verdict is ``OK`` when the reply was read and ``tools_called`` resolved to
tool names; otherwise each problem is spelled out (objects instead of names,
a path that stops matching part-way, no path configured, HTTP failure).

>>> from tooleval.connectors.python import CallableConnector
>>> report = probe(CallableConnector(lambda text: {"output": "hi", "tools_called": ["search"]}))
>>> report.verdict, report.tool_names
('OK', ['search'])
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from tooleval.connectors.paths import PathExplanation, objects_instead_of_names
from tooleval.connectors.response import as_sample
from tooleval.errors import ConnectorError, ToolEvalError
from tooleval.model import Sample
from tooleval.urlsafe import shown_url

__all__ = ["ProbeReport", "probe", "format_probe"]


@dataclass(slots=True)
class ProbeReport:
    """What one test request showed."""

    connector: dict[str, Any]
    input: str
    status: int | None = None
    latency_ms: float | None = None
    attempts: int | None = None
    raw: Any = None
    output: str | None = None
    tool_names: list[str] | None = None
    paths: dict[str, PathExplanation] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def verdict(self) -> str:
        return "OK" if self.ok else "PROBLEM"

    def to_dict(self) -> dict[str, Any]:
        return {
            "connector": self.connector,
            "input": self.input,
            "status": self.status,
            "latency_ms": self.latency_ms,
            "attempts": self.attempts,
            "raw": self.raw,
            "output": self.output,
            "tools_called": self.tool_names,
            "paths": {
                k: {
                    "path": e.path,
                    "verdict": e.verdict,
                    "values": e.values,
                    "matched_prefix": e.matched_prefix,
                    "message": e.message,
                }
                for k, e in self.paths.items()
            },
            "verdict": self.verdict,
            "problems": self.problems,
            "warnings": self.warnings,
        }


def probe(connector: Any, sample: Sample | str = "Hello") -> ProbeReport:
    """Send ``sample`` through ``connector`` once and diagnose the reply."""
    from tooleval.connectors.http import HttpConnector

    sample = as_sample(sample)
    report = ProbeReport(connector.describe(), sample.user_input())
    if isinstance(connector, HttpConnector):
        _probe_http(connector, sample, report)
    else:
        _probe_generic(connector, sample, report)
    if report.ok and report.tool_names is None:
        report.warnings.append(
            "no tools_called/tool_calls path is configured: tool-call metrics will be unscored"
        )
    return report


def _probe_generic(connector: Any, sample: Sample, report: ProbeReport) -> None:
    try:
        response = connector.call(sample)
    except ToolEvalError as exc:
        report.problems.append(str(exc))
        return
    report.status, report.latency_ms = response.status, response.latency_ms
    report.attempts, report.raw, report.output = response.attempts, response.raw, response.output
    report.warnings.extend(response.warnings)
    if response.tools_called is not None:
        report.tool_names = [c.name for c in response.tools_called]


def _probe_http(connector: Any, sample: Sample, report: ProbeReport) -> None:
    import time

    try:
        http_response, attempts, started = connector.send_raw(sample)
    except ConnectorError as exc:
        report.problems.append(str(exc))
        return
    report.status, report.attempts = http_response.status_code, attempts
    report.latency_ms = (time.perf_counter() - started) * 1000.0
    try:
        report.raw = http_response.json()
    except ValueError:
        report.raw = http_response.text
        if connector.mapping.configured:
            report.problems.append("the response is not JSON, so no JSONPath can be applied")
            return
    mapping = connector.mapping
    report.paths = mapping.explain(report.raw)
    for key, found in report.paths.items():
        if found.verdict in ("no_match", "no_content"):
            line = f"{key}: {found.message}"
            if key == "output":
                report.warnings.append(line)
            elif not mapping.missing_is_empty:
                report.problems.append(line)
        elif found.verdict == "empty" and key != "output":
            read = "no tool results" if key == "tool_results" else "no tools called"
            report.warnings.append(f"{key}: {found.message} (read as: {read})")
    names_key = "tools_called" if "tools_called" in report.paths else None
    if names_key and report.paths[names_key].ok:
        problem = objects_instead_of_names(mapping.paths[names_key], report.paths[names_key].values)
        if problem:
            report.problems.append(problem)
    if report.problems:
        return
    try:
        extracted = mapping.extract(report.raw)
    except ConnectorError as exc:
        report.problems.append(str(exc))
        return
    report.output = extracted.output
    if extracted.tools_called is not None:
        report.tool_names = [c.name for c in extracted.tools_called]


def _short(value: Any, limit: int = 400) -> str:
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "..."


def format_probe(report: ProbeReport, *, raw_limit: int = 4000) -> str:
    """The human-readable report printed by ``tooleval connector test``."""
    d = report.connector
    target = d.get("url") or d.get("base_url") or d.get("target")
    if isinstance(target, str) and "${" in target:  # what is sent, secrets masked
        target = f"{target} -> {shown_url(target)}"
    lines = [f"connector: {d.get('type')} {d.get('method', '')} {target}".replace("  ", " ")]
    if d.get("headers"):
        lines.append(f"headers:   {', '.join(d['headers'])} (values not shown)")
    lines.append(f"input:     {report.input!r}")
    if report.status is not None or report.latency_ms is not None:
        parts = []
        if report.status is not None:
            parts.append(f"status {report.status}")
        if report.latency_ms is not None:
            parts.append(f"{report.latency_ms:.0f} ms")
        if report.attempts:
            parts.append(f"{report.attempts} attempt{'s' if report.attempts != 1 else ''}")
        lines.append(f"reply:     {', '.join(parts)}")
    if report.raw is not None:
        raw = (
            report.raw
            if isinstance(report.raw, str)
            else json.dumps(report.raw, indent=2, default=str, ensure_ascii=False)
        )
        if len(raw) > raw_limit:
            raw = raw[:raw_limit] + f"\n... ({len(raw) - raw_limit} more characters)"
        lines += ["", "raw response:", raw]
    if report.paths:
        lines += ["", "paths:"]
        width = max(len(k) for k in report.paths)
        for key, found in report.paths.items():
            shown = _short(found.values) if found.ok else f"(nothing; {found.verdict})"
            lines.append(f"  {key:<{width}}  {found.path}")
            lines.append(f"  {'':<{width}}  -> {shown}")
    if report.ok:
        lines += ["", "extracted:"]
        lines.append(f"  output:       {_short(report.output)}")
        lines.append(
            "  tools_called: "
            + ("(not configured)" if report.tool_names is None else _short(report.tool_names))
        )
    lines.append("")
    for warning in report.warnings:
        lines.append(f"warning: {warning}")
    if report.ok:
        count = len(report.tool_names or [])
        lines.append(
            "verdict: OK"
            + (
                f" (tools_called resolved to {count} tool name{'s' if count != 1 else ''})"
                if report.tool_names is not None
                else ""
            )
        )
    else:
        lines.append("verdict: PROBLEM")
        lines += [f"  - {p}" for p in report.problems]
    return "\n".join(lines)
