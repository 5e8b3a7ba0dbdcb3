"""Failure clustering: read each failed row's diagnosis, then group the readings.

A failed row is put in one class, the first that applies:

- ``error``: the row could not be run (connector failure, unreadable cell).
- ``unscored``: no metric could score it (e.g. no ``expected_tools`` bound).
- ``missing_tool``: an expected call was not made: selection or routing.
- ``extra_tool``: a call was made that was not expected: over-eager use or a retry.
- ``wrong_order``: the right calls in the wrong sequence: planning.
- ``wrong_argument``: the right tool with a wrong value: extraction (names the key).
- ``below_threshold``: scored under threshold with nothing structural to show
  (a judged or output metric).

Cluster keys are structural: the class and the tool (``missing X``,
``extra Y``, ``wrong X.key``, ``called X instead of Y``) or, for errors, the
kind of connector failure and its HTTP status (:func:`error_key`). The free
text of an agent's reply never splits a cluster.

Then, across the run, ``plumbing``: every row failed and either no row called
any tool or all failed identically. That uniform shape is the connector or its
``tools_called`` path, not the agent.

>>> from tooleval.model import Diagnosis, Result, Sample, ToolCall
>>> from tooleval.store.records import RowRecord
>>> miss = Diagnosis(missing=[{"name": "issue_refund", "args": None, "index": 0}],
...                  extra=[{"name": "search_orders", "args": {}, "index": 0}])
>>> row = RowRecord("r", 0, "row-0", Sample(tools_called=[ToolCall("search_orders")]),
...                 (Result.scored("tool_correctness", 0.0, reason="", diagnosis=miss),))
>>> classify_failure(row), failure_detail(row)
('missing_tool', 'called search_orders instead of issue_refund')
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from tooleval.model import Diagnosis, Result
from tooleval.store.records import RowRecord

__all__ = [
    "FAILURE_CLASSES",
    "FailureCluster",
    "classified",
    "classify_failure",
    "cluster_failures",
    "cluster_subjects",
    "error_key",
    "failure_detail",
    "filter_clusters",
    "unscored_reasons",
]

_ROW_CONTEXT = re.compile(r"\brow [^,:]+(, |: )")

# class -> what it usually means (printed next to each cluster).
FAILURE_CLASSES: dict[str, str] = {
    "plumbing": "connector or tools_called path: the same failure on every row",
    "error": "the agent could not be called or the row not read",
    "missing_tool": "selection or routing: an expected tool was not called",
    "extra_tool": "over-eager tool use or a retry: a tool was called that was not expected",
    "wrong_order": "planning: the right tools in the wrong order",
    "wrong_argument": "extraction: the right tool with a wrong argument value",
    "unscored": "could not be scored (missing reference or judge failure)",
    "below_threshold": "scored under threshold with no structural difference",
}


@dataclass(frozen=True, slots=True)
class FailureCluster:
    """Failed rows that fail the same way: one probable bug."""

    failure_class: str
    count: int
    categories: dict[str, int]
    row_ids: tuple[str, ...]
    detail: str
    indexes: tuple[int, ...] = field(default=())

    @property
    def hint(self) -> str:
        return FAILURE_CLASSES.get(self.failure_class, "")

    @property
    def example(self) -> str | None:
        """One row of the cluster to look at first."""
        return self.row_ids[0] if self.row_ids else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "failure_class": self.failure_class,
            "count": self.count,
            "example_row": self.example,
            "categories": dict(self.categories),
            "row_ids": list(self.row_ids),
            "indexes": list(self.indexes),
            "detail": self.detail,
            "hint": self.hint,
        }


def _failing(row: RowRecord) -> list[Result]:
    return [r for r in row.results if r.passed is False]


def _call_key(call: dict[str, Any]) -> tuple[str, str]:
    """One call as two metrics report it: its name and where it sits (or its arguments)."""
    where = call.get("index")
    shown = repr(where) if where is not None else repr(sorted((call.get("args") or {}).items()))
    return str(call.get("name")), shown


def _union(reports: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """The calls of several metrics' reports, each call once: a call that two metrics both
    report missing (or extra) is one call, not two; one metric's own repeats are kept."""
    most: Counter[tuple[str, str]] = Counter()
    first: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for calls in reports:
        counts = Counter(_call_key(c) for c in calls)
        for key, n in counts.items():
            most[key] = max(most[key], n)
        for call in calls:
            first.setdefault(_call_key(call), []).append(call)
    return [call for key, n in most.items() for call in first[key][:n]]


def _merged(results: Iterable[Result]) -> Diagnosis:
    """The failing metrics' diagnoses as one: each call counted once (clusters count rows
    and the calls of a row, never the same call once per metric that reports it)."""
    merged = Diagnosis()
    diagnoses = [result.diagnosis for result in results]
    merged.missing.extend(_union([d.missing for d in diagnoses]))
    merged.extra.extend(_union([d.extra for d in diagnoses]))
    for d in diagnoses:
        merged.order_violations.extend(d.order_violations)
        merged.arguments.extend(d.arguments)
    return merged


def _names(calls: list[dict[str, Any]]) -> list[str]:
    return [str(c.get("name")) for c in calls]


def _renamed_args(diagnosis: Diagnosis) -> list[str]:
    """Keys that differ when a call is reported both missing and extra under one name.

    Some metrics pair calls by name *and* arguments, so ``refund(amount=300)``
    for ``refund(amount=30)`` shows up as one missing and one extra call;
    it is still a wrong argument, not a wrong tool.
    """
    keys: list[str] = []
    extra_by_name: dict[str, list[dict[str, Any]]] = {}
    for call in diagnosis.extra:
        extra_by_name.setdefault(str(call.get("name")), []).append(call)
    for call in diagnosis.missing:
        name = str(call.get("name"))
        partners = extra_by_name.get(name)
        if not partners:
            continue
        partner = partners.pop(0)
        expected = call.get("args") or {}
        actual = partner.get("args") or {}
        differing = sorted(k for k in expected if expected.get(k) != actual.get(k, object()))
        keys.extend(f"{name}.{k}" for k in differing or ["(arguments)"])
    return keys


def classify_failure(row: RowRecord) -> str | None:
    """The row's failure class (see the module docstring), or None if it did not fail."""
    if row.error:
        return "error"
    if row.results and all(r.passed is None for r in row.results):
        return "unscored"
    failing = _failing(row)
    if not failing:
        return None
    diagnosis = _merged(failing)
    missing, extra = Counter(_names(diagnosis.missing)), Counter(_names(diagnosis.extra))
    if (missing or extra) and missing == extra:
        return "wrong_argument"
    if missing:
        return "missing_tool"
    if extra:
        return "extra_tool"
    if diagnosis.order_violations:
        return "wrong_order"
    if diagnosis.argument_mismatches:
        return "wrong_argument"
    return "below_threshold"


_HTTP_STATUS = re.compile(r"\b(?:HTTP|status) (\d{3})\b")
# Where an HTTP failure message hands over to the agent's body text.
_BODY_AFTER = re.compile(r"\bHTTP \d{3}: ")
_EXCEPTION = re.compile(r"^connector error: ([A-Z][A-Za-z0-9_]*(?:Error|Exception|Timeout)):")
_COLUMN = re.compile(r"\bcolumn ([^,:;]+)")
_FIELD = re.compile(r"\bfield ([^,:;]+)")
_ENV = re.compile(r"environment variable ([A-Za-z_][A-Za-z0-9_]*)")
# What a connector error says, in order: the first that applies names the class.
_ERROR_KINDS = (
    ("not JSON", "body is not JSON"),
    ("environment variable", "environment variable not set"),
    ("placeholder", "request template"),
    ("matched nothing", "response path matched nothing"),
    ("path", "response path"),
    ("Timeout", "timeout"),
    ("timed out", "timeout"),
    ("ConnectError", "connection failed"),
    ("Connection refused", "connection failed"),
    ("RemoteProtocolError", "connection dropped"),
)


def error_key(error: str) -> str:
    """The cluster key of an error row: its class and HTTP status, never the body text.

    Agents put anything in an error body (ids, timestamps, stack traces), so
    two rows failing for one cause would never share a text; they share the
    kind of failure and the status.

    >>> error_key("connector error: POST http://x/agent failed after 3 attempts: HTTP 503: "
    ...           "upstream 7f3a busy at 12:01")
    'connector error: HTTP 503'
    >>> error_key("row could not be read: row 4, column expected_tools: invalid JSON")
    'row could not be read: column expected_tools'
    """
    first = error.strip().splitlines()[0] if error.strip() else ""
    if first.startswith("row could not be read"):
        column = _COLUMN.search(first)
        field = _FIELD.search(first)
        where = (
            f"column {column.group(1)}" if column else f"field {field.group(1)}" if field else ""
        )
        return "row could not be read" + (f": {where.strip()}" if where else "")
    if first.startswith("connector error"):
        # The agent's reply text starts after the status: judge only what tooleval wrote.
        body_starts = _BODY_AFTER.search(first)
        head = first[: body_starts.end()] if body_starts else first
        status = _HTTP_STATUS.search(head)
        kind = next((name for marker, name in _ERROR_KINDS if marker in head), None)
        if kind == "environment variable not set":
            env = _ENV.search(head)
            kind = f"environment variable {env.group(1)} not set" if env else kind
        if kind is None and status is None:
            exc = _EXCEPTION.match(first)
            kind = exc.group(1) if exc else "other"
        parts = [p for p in (kind, f"HTTP {status.group(1)}" if status else None) if p]
        return "connector error: " + ", ".join(parts)
    return _clip(_ROW_CONTEXT.sub("", first) or "error", 80)


def _reason_key(reason: str) -> str:
    """An unscored reason without what varies per row (quoted values, numbers)."""
    text = reason.split("\n", 1)[0]
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", text)
    text = re.sub(r"\brow \d+", "row N", text)
    return _clip(text, 160)


def unscored_reasons(rows: Iterable[RowRecord]) -> dict[str, Counter[str]]:
    """Per metric, how many results were unscored for each reason (per-row values masked).

    Rows that pass on their scored metrics still count here: a judged metric left unscored
    on every row is a finding even when nothing failed.

    >>> from tooleval.model import Result, Sample
    >>> row = RowRecord("r", 0, "a", Sample(), results=(Result.unscored("m", "no key 'x'"),))
    >>> dict(unscored_reasons([row])["m"])
    {"no key '…'": 1}
    """
    found: dict[str, Counter[str]] = {}
    for row in rows:
        for result in row.results:
            if result.passed is None and not row.error:
                found.setdefault(result.metric, Counter())[_reason_key(result.reason)] += 1
    return found


def _clip(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def classified(row: RowRecord) -> RowRecord:
    """``row`` with its failure class and cluster key set, as the runner stores it.

    Stored with the row, they let a finished run's clusters be counted by the
    database (:func:`tooleval.analysis.aggregates.run_clusters`) instead of re-read.
    """
    failure_class = classify_failure(row)
    detail = failure_detail(row, failure_class) if failure_class else None
    return dataclasses.replace(row, failure_class=failure_class, failure_detail=detail)


def failure_detail(row: RowRecord, failure_class: str | None = None) -> str:
    """A short text that is the same for rows failing the same way (the cluster key)."""
    failure_class = failure_class or classify_failure(row)
    if failure_class is None:
        return ""
    if failure_class == "error":
        return error_key(row.error or "")
    if failure_class == "unscored":
        reasons = sorted({_reason_key(r.reason) for r in row.results if r.passed is None})
        return _clip("; ".join(reasons))
    diagnosis = _merged(_failing(row))
    missing, extra = _names(diagnosis.missing), _names(diagnosis.extra)
    if failure_class == "missing_tool":
        gone = [n for n in missing if n not in extra]
        instead = [n for n in extra if n not in missing]
        if instead:
            return f"called {', '.join(sorted(set(instead)))} instead of {', '.join(sorted(set(gone)))}"
        return f"missing {', '.join(sorted(set(gone)))}"
    if failure_class == "extra_tool":
        counts = Counter(extra)
        parts = [f"{n} x{c}" if c > 1 else n for n, c in sorted(counts.items())]
        return f"extra {', '.join(parts)}"
    if failure_class == "wrong_order":
        return sorted(set(diagnosis.order_violations))[0]
    if failure_class == "wrong_argument":
        keys = _renamed_args(diagnosis) or [
            f"{a.tool}.{a.key}" for a in diagnosis.argument_mismatches
        ]
        return f"wrong {', '.join(sorted(set(keys)))}"
    if failure_class == "below_threshold":
        return "below threshold: " + ", ".join(sorted({r.metric for r in _failing(row)}))
    return failure_class


def _plumbing(rows: list[RowRecord], readings: list[tuple[str | None, str]]) -> str | None:
    """Why every row failing alike looks like plumbing, or None if it does not."""
    if any(cls is None for cls, _ in readings):
        return None
    if all(cls == "error" for cls, _ in readings):
        common, _ = Counter(detail for _, detail in readings).most_common(1)[0]
        return f"every row failed to reach the agent: {common}"
    if all(not row.sample.actual_calls() for row in rows):
        return "every row called no tool: check the connector's tools_called path"
    if len(set(readings)) == 1:
        cls, detail = readings[0]
        return f"every row failed the same way ({cls}: {detail})"
    return None


def cluster_failures(
    rows: Iterable[RowRecord], *, min_plumbing_rows: int = 3, total_rows: int | None = None
) -> list[FailureCluster]:
    """Group a run's failed rows into clusters, biggest first ("40 failures → 3 bugs").

    Pass *all* the run's rows (passing ones included): a plumbing failure
    is recognised by every row failing alike, which needs the whole run.
    Runs shorter than ``min_plumbing_rows`` are never called plumbing. When
    only some rows are passed (e.g. the failed ones of a big run), give
    ``total_rows`` so fewer rows than the run had are never called plumbing.
    """
    rows = list(rows)
    whole_run = total_rows is None or len(rows) >= total_rows
    readings = []
    for row in rows:
        cls = classify_failure(row)
        readings.append((cls, failure_detail(row, cls) if cls else ""))
    plumbing = _plumbing(rows, readings) if whole_run and len(rows) >= min_plumbing_rows else None
    groups: dict[tuple[str, str], list[RowRecord]] = {}
    for row, (cls, detail) in zip(rows, readings, strict=True):
        if cls is None:
            continue
        key = ("plumbing", plumbing) if plumbing else (cls, detail)
        groups.setdefault(key, []).append(row)
    clusters = [
        FailureCluster(
            failure_class=cls,
            count=len(members),
            categories=dict(Counter(r.category or "(none)" for r in members).most_common()),
            row_ids=tuple(r.row_id for r in members),
            detail=detail,
            indexes=tuple(r.index for r in members),
        )
        for (cls, detail), members in groups.items()
    ]
    order = list(FAILURE_CLASSES)
    clusters.sort(key=lambda c: (-c.count, order.index(c.failure_class), c.detail))
    return clusters


_SUBJECT = re.compile(r"[A-Za-z_][\w\-]*(?:\.[\w\-]+)?")
_WORDS = frozenset({"called", "instead", "of", "missing", "extra", "wrong", "came", "before"})


def cluster_subjects(cluster: FailureCluster) -> tuple[str, ...]:
    """The tools and ``tool.argument`` names a cluster's key names, in order.

    >>> c = FailureCluster("wrong_argument", 3, {}, (), "wrong issue_refund.amount")
    >>> cluster_subjects(c)
    ('issue_refund.amount',)
    >>> cluster_subjects(FailureCluster("missing_tool", 1, {}, (), "called a instead of b"))
    ('a', 'b')
    """
    if cluster.failure_class not in ("missing_tool", "extra_tool", "wrong_argument", "wrong_order"):
        return ()
    found = []
    for word in _SUBJECT.findall(cluster.detail):
        if word in _WORDS or word.startswith("expected") or re.fullmatch(r"x\d+", word):
            continue
        if word not in found:
            found.append(word)
    return tuple(found)


def filter_clusters(clusters: Iterable[FailureCluster], what: str | None) -> list[FailureCluster]:
    """The clusters whose class, tool, argument, key or category contains ``what``.

    >>> c = FailureCluster("wrong_argument", 3, {"refund": 3}, (), "wrong issue_refund.amount")
    >>> [len(filter_clusters([c], w)) for w in ("amount", "refund", "cancel", None)]
    [1, 1, 0, 1]
    """
    clusters = list(clusters)
    if not what or not what.strip():
        return clusters
    needle = what.strip().lower()
    return [
        c
        for c in clusters
        if needle in c.failure_class.lower()
        or needle in c.detail.lower()
        or any(needle in name.lower() for name in c.categories)
    ]
