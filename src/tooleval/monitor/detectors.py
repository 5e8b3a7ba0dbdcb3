"""Detectors: deterministic checks over one session that need no expected calls.

Each detector is a pure function ``detector(session, *, options) -> list[Finding]``;
a finding names the session, the tool, the calls involved (by position and
span id) and the evidence. Two calls are *identical* when they have the same
tool name and the same canonical arguments (JSON with sorted keys, no
whitespace: see :func:`~tooleval.monitor.session.canonical_arguments`).

================  ============================================================
detector          flags
================  ============================================================
redundancy        an identical call made again after it already succeeded
retry_loop        ``min_run`` (3) identical calls in a row, or an identical call
                  re-tried ``min_run`` times where every earlier attempt failed
error_ignored     a tool's last failed call, not retried, then a final answer that
                  claims the effect (state-changing tools) or does not mention it
excessive_calls   more than ``max_calls`` (25) calls, or a tool called far more
                  often than usual across the batch (robust z-score > 3.5)
================  ============================================================

>>> from tooleval.model import ToolCall
>>> from tooleval.monitor.session import Session, TracedCall
>>> s = Session("s1", [TracedCall(ToolCall("f", {"a": 1})) for _ in range(3)])
>>> [(f.detector, f.tool, f.call_indices) for f in retry_loop(s)]
[('retry_loop', 'f', (0, 1, 2))]
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tooleval.errors import ConfigError
from tooleval.model import Diagnosis, Result
from tooleval.monitor.error_ignored import error_ignored
from tooleval.monitor.session import Session, canonical_arguments

__all__ = [
    "DETECTORS",
    "DetectorInfo",
    "Finding",
    "ToolBaseline",
    "detector_result",
    "error_ignored",
    "excessive_calls",
    "redundancy",
    "resolve_detector_options",
    "retry_loop",
    "run_detectors",
]


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem a detector found in a session, with its evidence."""

    detector: str
    session_id: str
    message: str
    tool: str | None = None
    call_indices: tuple[int, ...] = ()
    span_ids: tuple[str, ...] = ()
    trace_id: str | None = None
    evidence: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "detector": self.detector,
            "session_id": self.session_id,
            "tool": self.tool,
            "message": self.message,
            "call_indices": list(self.call_indices),
            "span_ids": list(self.span_ids),
            "trace_id": self.trace_id,
            "evidence": self.evidence,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Finding:
        return cls(
            detector=data["detector"],
            session_id=data["session_id"],
            message=data.get("message", ""),
            tool=data.get("tool"),
            call_indices=tuple(data.get("call_indices") or ()),
            span_ids=tuple(data.get("span_ids") or ()),
            trace_id=data.get("trace_id"),
            evidence=dict(data.get("evidence") or {}),
        )


def _finding(
    detector: str, session: Session, indices: Iterable[int], message: str, **evidence: Any
) -> Finding:
    indices = tuple(indices)
    calls = [session.calls[i] for i in indices]
    return Finding(
        detector=detector,
        session_id=session.id,
        message=message,
        tool=calls[0].name if calls else evidence.pop("tool", None),
        call_indices=indices,
        span_ids=tuple(c.span_id for c in calls if c.span_id),
        trace_id=next((c.trace_id for c in calls if c.trace_id), None)
        or (session.trace_ids[0] if session.trace_ids else None),
        evidence=evidence,
    )


# The keys of the last session asked for: several detectors read them in turn.
_last_keys: tuple[Any, ...] = (None, None, ())


def _keys(session: Session) -> list[tuple[str, str]]:
    # A call whose arguments were not recorded equals no other call: comparing
    # unknown arguments would turn any two calls of one tool into "identical" ones.
    global _last_keys
    calls = session.calls
    last_calls, last_items, keys = _last_keys
    if last_calls is calls and last_items == tuple(map(id, calls)):
        return list(keys)
    keys = [
        (c.name, f"unknown:{i}" if c.arguments_missing else canonical_arguments(c.call))
        for i, c in enumerate(calls)
    ]
    _last_keys = (calls, tuple(map(id, calls)), tuple(keys))
    return keys


# ---------------------------------------------------------------- redundancy


def redundancy(session: Session, *, after_error: bool = False) -> list[Finding]:
    """The same call (tool + canonical arguments) made more than once.

    By default a repeat counts only when an earlier identical call succeeded:
    calling again after a failure is a retry (see :func:`retry_loop`), not
    redundancy. ``after_error=True`` flags every repeat.

    >>> from tooleval.model import ToolCall
    >>> from tooleval.monitor.session import Session, TracedCall
    >>> ok = TracedCall(ToolCall.parse("get", '{"id": 1}'))
    >>> again = TracedCall(ToolCall.parse("get", '{ "id" : 1 }'))
    >>> [f.call_indices for f in redundancy(Session("s", [ok, again]))]
    [(0, 1)]
    """
    groups: dict[tuple[str, str], list[int]] = {}
    for index, key in enumerate(_keys(session)):
        groups.setdefault(key, []).append(index)
    findings = []
    for (name, args), indices in groups.items():
        if len(indices) < 2:
            continue
        if after_error:
            repeats = len(indices) - 1
        else:
            # a success must be seen: a request whose result was never recorded may have failed
            first_ok = next(
                (
                    n
                    for n, i in enumerate(indices)
                    if not session.calls[i].is_error and session.calls[i].outcome_known
                ),
                None,
            )
            repeats = 0 if first_ok is None else len(indices) - 1 - first_ok
        if repeats < 1:
            continue
        findings.append(
            _finding(
                "redundancy",
                session,
                indices,
                f"{name} called {len(indices)} times with the same arguments",
                arguments=args,
                count=len(indices),
                repeats=repeats,
            )
        )
    return findings


# ---------------------------------------------------------------- retry loop


def retry_loop(session: Session, *, min_run: int = 3) -> list[Finding]:
    """Loops: ``min_run`` identical calls in a row, or identical re-tries after errors.

    Two shapes are flagged:

    * ``adjacent``: a run of at least ``min_run`` identical calls with nothing
      in between, whatever their outcome;
    * ``after_errors``: at least ``min_run`` attempts of one identical call,
      other calls possibly in between, where every attempt but the last
      failed (the agent keeps re-trying a call that keeps failing). Such a
      chain is not reported again when one adjacent run already covers it.

    >>> from tooleval.model import ToolCall
    >>> from tooleval.monitor.session import Session, TracedCall
    >>> bad = TracedCall(ToolCall("pay", {"n": 1}, is_error=True))
    >>> other = TracedCall(ToolCall("log", {}))
    >>> [f.evidence["shape"] for f in retry_loop(Session("s", [bad, other, bad, other, bad]))]
    ['after_errors']
    """
    if not isinstance(min_run, int) or min_run < 2:
        raise ConfigError(f"min_run must be an integer >= 2, got {min_run!r}", field="retry_loop")
    keys = _keys(session)
    findings: list[Finding] = []
    covered: list[set[int]] = []
    start = 0
    for index in range(1, len(keys) + 1):
        if index < len(keys) and keys[index] == keys[start]:
            continue
        if index - start >= min_run:
            run = range(start, index)
            covered.append(set(run))
            findings.append(
                _finding(
                    "retry_loop",
                    session,
                    run,
                    f"{keys[start][0]} called {index - start} times in a row with the same arguments",
                    shape="adjacent",
                    arguments=keys[start][1],
                    errors=sum(1 for i in run if session.calls[i].is_error),
                )
            )
        start = index

    positions: dict[tuple[str, str], list[int]] = {}
    for index, key in enumerate(keys):
        positions.setdefault(key, []).append(index)
    chains: list[list[int]] = []
    for indices in positions.values():
        chain = [indices[0]]
        for index in indices[1:]:
            if session.calls[chain[-1]].is_error:
                chain.append(index)
            else:
                chains.append(chain)
                chain = [index]
        chains.append(chain)
    for chain in sorted(chains):
        if len(chain) < min_run or any(set(chain) <= run for run in covered):
            continue
        name, args = keys[chain[0]]
        findings.append(
            _finding(
                "retry_loop",
                session,
                chain,
                f"{name} re-tried {len(chain)} times with the same arguments after errors",
                shape="after_errors",
                arguments=args,
                errors=sum(1 for i in chain if session.calls[i].is_error),
            )
        )
    return findings


# ---------------------------------------------------------------- excessive calls

# 0.6745 is the 75th percentile of the standard normal, so MAD/0.6745 estimates
# sigma; 1.253314 (sqrt(pi/2)) does the same for the mean absolute deviation.
_MAD_SCALE = 0.6745
_MEANAD_SCALE = 1.253314


@dataclass(slots=True)
class ToolBaseline:
    """How often each tool is usually called in a session, over a batch.

    Per tool, over the sessions that call it at least once: the median count,
    the median absolute deviation (MAD) and the mean absolute deviation from
    the median. The robust z-score of a count is ``(count - median) / spread``
    where ``spread = MAD / 0.6745`` (or ``1.2533 * mean deviation`` when MAD
    is 0), never less than 1 call.

    >>> b = ToolBaseline.from_counts([{"f": 1}] * 6 + [{"f": 2}, {"f": 12}])
    >>> round(b.z_score("f", 12), 1), b.z_score("f", 1)
    (5.9, 0.0)
    """

    stats: dict[str, tuple[float, float, float, int]] = field(default_factory=dict)

    @classmethod
    def from_counts(cls, counts: Iterable[Mapping[str, int]]) -> ToolBaseline:
        per_tool: dict[str, array] = {}
        for session_counts in counts:
            for tool, count in session_counts.items():
                if count > 0:
                    per_tool.setdefault(tool, array("l")).append(int(count))
        stats = {}
        for tool, values in per_tool.items():
            ordered = sorted(values)
            median = _median(ordered)
            deviations = sorted(abs(v - median) for v in ordered)
            mad = _median(deviations)
            mean_ad = sum(deviations) / len(deviations)
            stats[tool] = (median, mad, mean_ad, len(ordered))
        return cls(stats)

    @classmethod
    def from_histograms(cls, histograms: Mapping[str, Mapping[int, int]]) -> ToolBaseline:
        """The baseline of sessions given as, per tool, how many sessions called it how often.

        ``{"f": {1: 6, 2: 1, 12: 1}}`` is the baseline of the docstring's eight
        sessions: the same figures as :meth:`from_counts`, in time proportional to the
        distinct counts instead of the sessions (the live monitor keeps these
        histograms as sessions come and go; ``tests/monitor/test_detectors.py``).
        """
        stats = {}
        for tool, histogram in histograms.items():
            ordered = sorted((int(c), n) for c, n in histogram.items() if c > 0 and n > 0)
            total = sum(n for _, n in ordered)
            if not total:
                continue
            median = _histogram_median(ordered, total)
            deviations: dict[float, int] = {}
            for count, n in ordered:
                deviation = abs(count - median)
                deviations[deviation] = deviations.get(deviation, 0) + n
            spread = sorted(deviations.items())
            mad = _histogram_median(spread, total)
            # counts are whole and the median a multiple of 0.5: these sums are exact
            mean_ad = sum(d * n for d, n in spread) / total
            stats[tool] = (median, mad, mean_ad, total)
        return cls(stats)

    @classmethod
    def from_sessions(cls, sessions: Iterable[Session]) -> ToolBaseline:
        return cls.from_counts(Counter(c.name for c in s.calls) for s in sessions)

    def z_score(self, tool: str, count: int) -> float:
        """Robust z-score of ``count`` for ``tool`` (0.0 for a tool the batch never called)."""
        if tool not in self.stats:
            return 0.0
        median, mad, mean_ad, _ = self.stats[tool]
        spread = mad / _MAD_SCALE if mad > 0 else _MEANAD_SCALE * mean_ad
        # Counts are whole numbers: a spread under one call would make a session that
        # calls a tool twice, where it is always called once, look like an outlier.
        return (count - median) / max(spread, 1.0)

    def sessions(self, tool: str) -> int:
        return self.stats[tool][3] if tool in self.stats else 0

    def to_dict(self) -> dict[str, Any]:
        return {tool: list(values) for tool, values in self.stats.items()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolBaseline:
        return cls({k: (float(v[0]), float(v[1]), float(v[2]), int(v[3])) for k, v in data.items()})


def _histogram_median(ordered: Sequence[tuple[float, int]], total: int) -> float:
    """:func:`_median` of the sorted values ``ordered`` gives as ``(value, times)``."""

    def at(position: int) -> float:
        seen = 0
        for value, times in ordered:
            seen += times
            if position < seen:
                return value
        raise IndexError(position)

    mid = total // 2
    return float(at(mid)) if total % 2 else (at(mid - 1) + at(mid)) / 2.0


def _median(ordered: list[float] | list[int]) -> float:
    n = len(ordered)
    mid = n // 2
    return float(ordered[mid]) if n % 2 else (ordered[mid - 1] + ordered[mid]) / 2.0


def excessive_calls(
    session: Session,
    *,
    max_calls: int = 25,
    baseline: ToolBaseline | None = None,
    z_threshold: float = 3.5,
    min_sessions: int = 5,
) -> list[Finding]:
    """Too many calls: over ``max_calls`` in total, or far above a tool's usual count.

    The second check needs a ``baseline`` over the batch (see
    :class:`ToolBaseline`); a tool is flagged when its count in this session
    has a robust z-score above ``z_threshold`` (3.5, the usual cut-off for
    modified z-scores), the count is above the median, and the tool was seen
    in at least ``min_sessions`` sessions (too few give no "usual").

    >>> from tooleval.model import ToolCall
    >>> from tooleval.monitor.session import Session, TracedCall
    >>> s = Session("s", [TracedCall(ToolCall("f", {"i": i})) for i in range(4)])
    >>> [f.evidence["count"] for f in excessive_calls(s, max_calls=3)]
    [4]
    """
    if max_calls < 0 or min_sessions < 1 or z_threshold <= 0:
        raise ConfigError(
            "max_calls must be >= 0, min_sessions >= 1 and z_threshold > 0", field="excessive_calls"
        )
    findings = []
    if len(session.calls) > max_calls:
        findings.append(
            Finding(
                detector="excessive_calls",
                session_id=session.id,
                message=f"{len(session.calls)} tool calls in one session (limit {max_calls})",
                call_indices=tuple(range(len(session.calls))),
                span_ids=tuple(c.span_id for c in session.calls if c.span_id),
                trace_id=session.trace_ids[0] if session.trace_ids else None,
                evidence={"shape": "total", "count": len(session.calls), "max_calls": max_calls},
            )
        )
    if baseline is not None:
        counts = Counter(c.name for c in session.calls)
        for tool, count in sorted(counts.items()):
            if baseline.sessions(tool) < min_sessions:
                continue
            median, mad, _, sessions = baseline.stats[tool]
            z = baseline.z_score(tool, count)
            if count > median and z > z_threshold:
                indices = [i for i, c in enumerate(session.calls) if c.name == tool]
                findings.append(
                    _finding(
                        "excessive_calls",
                        session,
                        indices,
                        f"{tool} called {count} times; usually {median:g} (robust z {z:.1f})",
                        shape="above_usual",
                        count=count,
                        median=median,
                        mad=mad,
                        z_score=round(z, 3),
                        sessions=sessions,
                    )
                )
    return findings


# ---------------------------------------------------------------- registry


@dataclass(frozen=True, slots=True)
class DetectorInfo:
    name: str
    detect: Callable[..., list[Finding]]
    description: str
    options: dict[str, Any]
    needs_baseline: bool = False


DETECTORS: dict[str, DetectorInfo] = {
    "redundancy": DetectorInfo(
        "redundancy",
        redundancy,
        "identical call repeated after it succeeded",
        {"after_error": False},
    ),
    "retry_loop": DetectorInfo(
        "retry_loop",
        retry_loop,
        "identical calls in a row, or re-tried after errors",
        {"min_run": 3},
    ),
    "error_ignored": DetectorInfo(
        "error_ignored",
        error_ignored,
        "failed call glossed over (or its effect claimed) by the final answer",
        {"state_changing": [], "read_only": []},
    ),
    "excessive_calls": DetectorInfo(
        "excessive_calls",
        excessive_calls,
        "too many calls in total, or far above a tool's usual count",
        {"max_calls": 25, "z_threshold": 3.5, "min_sessions": 5},
        needs_baseline=True,
    ),
}


def resolve_detector_options(
    detectors: Iterable[str] | None = None, options: Mapping[str, Mapping[str, Any]] | None = None
) -> dict[str, dict[str, Any]]:
    """Chosen detectors with every option filled in; ConfigError on unknown names.

    >>> resolve_detector_options(["retry_loop"])
    {'retry_loop': {'min_run': 3}}
    """
    names = list(DETECTORS) if detectors is None else list(dict.fromkeys(detectors))
    for name in names:
        if name not in DETECTORS:
            raise ConfigError(
                f"unknown detector {name!r}; known: {', '.join(DETECTORS)}", field="detectors"
            )
    resolved = {}
    options = options or {}
    for name in options:
        if name not in DETECTORS:
            raise ConfigError(f"options given for unknown detector {name!r}", field="options")
    for name in names:
        info = DETECTORS[name]
        given = dict(options.get(name) or {})
        unknown = set(given) - set(info.options)
        if unknown:
            raise ConfigError(
                f"unknown option(s) {sorted(unknown)} for detector {name}; "
                f"known: {sorted(info.options) or 'none'}",
                field=f"options.{name}",
            )
        resolved[name] = {**info.options, **given}
    return resolved


def run_detectors(
    session: Session,
    *,
    detectors: Iterable[str] | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    baseline: ToolBaseline | None = None,
) -> dict[str, list[Finding]]:
    """Run the chosen detectors (all by default) on one session: name -> findings.

    >>> from tooleval.model import ToolCall
    >>> from tooleval.monitor.session import Session, TracedCall
    >>> s = Session("s1", [TracedCall(ToolCall("f", {})) for _ in range(3)])
    >>> {name: len(found) for name, found in run_detectors(s, detectors=["retry_loop"]).items()}
    {'retry_loop': 1}
    """
    out = {}
    for name, params in resolve_detector_options(detectors, options).items():
        info = DETECTORS[name]
        extra = {"baseline": baseline} if info.needs_baseline else {}
        out[name] = info.detect(session, **params, **extra)
    return out


def detector_result(name: str, findings: list[Finding], params: Mapping[str, Any]) -> Result:
    """A detector's verdict on one session as a Result: 1.0 clean, 0.0 with findings.

    >>> r = detector_result("retry_loop", [], {"min_run": 3})
    >>> r.metric, r.score, r.passed
    ('detector:retry_loop', 1.0, True)
    """
    if findings:
        reason = "; ".join(f.message for f in findings[:3])
        if len(findings) > 3:
            reason += f"; and {len(findings) - 3} more"
    else:
        reason = "no findings"
    return Result.scored(
        f"detector:{name}",
        0.0 if findings else 1.0,
        reason=reason,
        params=params,
        diagnosis=Diagnosis(details={"findings": [f.to_dict() for f in findings]}),
    )
