"""The gate of ``tooleval score``: per-metric counters, floors, verdict lines, exit code.

``--min-pass-rate [METRIC=]RATE`` and ``--max-unscored-rate [METRIC=]RATE``
(repeatable; without ``METRIC=`` for every metric, a ``METRIC=`` rule
replacing it for that metric) are checked on counters kept while the results
are written (:class:`MetricTally`: a few integers per metric, whatever the
file's size). The pass rate is ``passed / scored``: an unscored row is never
a pass or a failure; it counts only against ``--max-unscored-rate``. As in
``tooleval run`` (:mod:`tooleval.analysis.gate`), a metric no pass-rate floor
names still has the default check "at least one row passed" once any gate
option is given, and the exit code is 0 passed, 1 failed (2 stays usage or
input errors). The checks have the shape of ``analysis.gate.GateCheck``
(that module needs the run store's extra; ``tooleval score`` does not).

>>> tally = {"tool_correctness": MetricTally(rows=10, passed=8, failed=1, unscored=1)}
>>> rules = GateRules(min_pass_rate={None: 0.9})
>>> result = check_gate(tally, rules)
>>> result.passed
False
>>> print(result.checks[0].message)
tool_correctness: pass rate 88.9% [56.5, 98.0] (95% wilson, 8 of 9 scored rows, n=9; 1 unscored not counted) < 90.0% (--min-pass-rate)
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import IO, Any

from tooleval.errors import ConfigError, did_you_mean

__all__ = [
    "GateRules",
    "MetricTally",
    "ScoreCheck",
    "ScoreGate",
    "StreamedTally",
    "check_gate",
    "parse_gate_rules",
    "print_gate",
]

CONFIDENCE = 0.95  # the pass rate's Wilson interval in verdict lines and --table


@dataclass(slots=True)
class MetricTally:
    """What one metric did over the file: rows, passed, failed, unscored, the score sum."""

    rows: int = 0
    passed: int = 0
    failed: int = 0
    unscored: int = 0
    score_sum: float = 0.0

    def add(self, score: float | None, passed: bool | None) -> None:
        """Count one result (``score`` None: unscored, whatever ``passed`` says).

        >>> t = MetricTally(); t.add(1.0, True); t.add(None, None); t.add(0.2, False)
        >>> (t.rows, t.passed, t.failed, t.unscored, round(t.mean_score, 2))
        (3, 1, 1, 1, 0.6)
        """
        self.rows += 1
        if score is None:
            self.unscored += 1
            return
        self.score_sum += score
        if passed:
            self.passed += 1
        else:
            self.failed += 1

    @property
    def scored(self) -> int:
        return self.passed + self.failed

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.scored if self.scored else None

    @property
    def mean_score(self) -> float | None:
        return self.score_sum / self.scored if self.scored else None

    def interval_text(self, confidence: float = CONFIDENCE) -> str:
        """The pass rate's Wilson interval in percent (``[53.1, 88.8]``), ``-`` when nothing scored.

        >>> MetricTally(rows=20, passed=15, failed=5).interval_text()
        '[53.1, 88.8]'
        """
        if not self.scored:
            return "-"
        from tooleval.stats import wilson_interval

        low, high = _bounds(wilson_interval(self.passed, self.scored, confidence))
        return f"[{low:.1f}, {high:.1f}]"


def _bounds(interval: Any) -> tuple[float, float]:
    return 100 * interval.low, 100 * interval.high


@dataclass(frozen=True, slots=True)
class ScoreCheck:
    """One floor checked (the fields of ``analysis.gate.GateCheck``)."""

    name: str
    value: float | None
    required: float
    passed: bool
    message: str
    interval: Any = None  # a tooleval.stats.Interval for pass-rate checks
    outcome: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "value": self.value,
            "required": self.required,
            "passed": self.passed,
            "message": self.message,
            "interval": self.interval.to_dict() if self.interval is not None else None,
            "outcome": self.outcome,
        }


@dataclass(frozen=True, slots=True)
class ScoreGate:
    """Every check; ``passed`` when all passed."""

    checks: tuple[ScoreCheck, ...] = ()

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)

    @property
    def exit_code(self) -> int:
        """0 passed, 1 failed: the codes of ``tooleval run``."""
        return 0 if self.passed else 1


@dataclass(frozen=True, slots=True)
class GateRules:
    """The floors by metric name; the key ``None`` holds the rule for every metric."""

    min_pass_rate: dict[str | None, float] = field(default_factory=dict)
    max_unscored_rate: dict[str | None, float] = field(default_factory=dict)

    @property
    def is_empty(self) -> bool:
        return not self.min_pass_rate and not self.max_unscored_rate

    def rule(self, kind: str, metric: str) -> float | None:
        rules = self.min_pass_rate if kind == "min_pass_rate" else self.max_unscored_rate
        return rules.get(metric, rules.get(None))


def _rate(text: str, option: str, given: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 <= value <= 1.0:  # NaN fails too
        raise ConfigError(
            f"{option} {given!r}: expected a number between 0 and 1 (0.9 for 90%), got {text!r}",
            field=option,
        )
    return value


def parse_rate_rules(values: list[str], option: str, metrics: list[str]) -> dict[str | None, float]:
    """``[METRIC=]RATE`` strings into ``{metric or None: rate}``; bad ones are ConfigErrors.

    >>> parse_rate_rules(["0.8", "f1=0.95"], "--min-pass-rate", ["f1", "acc"])
    {None: 0.8, 'f1': 0.95}
    >>> parse_rate_rules(["tool_call_fl=0.9"], "--min-pass-rate", ["tool_call_f1"])
    Traceback (most recent call last):
    ...
    tooleval.errors.ConfigError: field --min-pass-rate: --min-pass-rate 'tool_call_fl=0.9': tool_call_fl is not a metric being scored (scored: tool_call_f1) (did you mean 'tool_call_f1'?)
    """
    rules: dict[str | None, float] = {}
    for given in values:
        name, sep, number = given.rpartition("=")
        metric = name.strip() if sep else None
        if sep and not metric:
            raise ConfigError(f"{option} {given!r}: expected [METRIC=]RATE", field=option)
        if metric is not None and metric not in metrics:
            raise ConfigError(
                f"{option} {given!r}: {metric} is not a metric being scored "
                f"(scored: {', '.join(metrics)})" + did_you_mean(metric, metrics),
                field=option,
            )
        rate = _rate(number.strip(), option, given)
        if metric in rules:
            who = metric or "every metric"
            raise ConfigError(
                f"{option} for {who} given twice ({rules[metric]}, then {rate}); give it once",
                field=option,
            )
        rules[metric] = rate
    return rules


def parse_gate_rules(min_pass: list[str], max_unscored: list[str], metrics: list[str]) -> GateRules:
    """The gate of ``--min-pass-rate`` / ``--max-unscored-rate`` for the metrics scored."""
    return GateRules(
        min_pass_rate=parse_rate_rules(min_pass, "--min-pass-rate", metrics),
        max_unscored_rate=parse_rate_rules(max_unscored, "--max-unscored-rate", metrics),
    )


def _pct(value: float) -> str:
    return f"{value:.1%}"


def _pass_rate_check(metric: str, tally: MetricTally, required: float) -> ScoreCheck:
    rule = f"{_pct(required)} (--min-pass-rate)"
    if not tally.scored:
        message = (
            f"{metric}: no scored rows ({tally.unscored} unscored), so the pass rate cannot "
            f"reach {rule}"
        )
        return ScoreCheck(metric, None, required, False, message, outcome="fail")
    from tooleval.stats import wilson_interval

    rate = tally.passed / tally.scored
    interval = wilson_interval(tally.passed, tally.scored, CONFIDENCE)
    ok = rate >= required
    low, high = _bounds(interval)
    unscored = f"; {tally.unscored} unscored not counted" if tally.unscored else ""
    message = (
        f"{metric}: pass rate {_pct(rate)} [{low:.1f}, {high:.1f}] ({CONFIDENCE:.0%} wilson, "
        f"{tally.passed} of {tally.scored} scored rows, n={tally.scored}{unscored}) "
        f"{'>=' if ok else '<'} {rule}"
    )
    return ScoreCheck(
        metric, rate, required, ok, message, interval, outcome="pass" if ok else "fail"
    )


def _unscored_check(metric: str, tally: MetricTally, allowed: float) -> ScoreCheck:
    rate = tally.unscored / tally.rows if tally.rows else 0.0
    ok = rate <= allowed
    message = (
        f"{metric}: unscored {tally.unscored}/{tally.rows} rows ({_pct(rate)}) "
        f"{'<=' if ok else '>'} {_pct(allowed)} allowed (--max-unscored-rate)"
    )
    return ScoreCheck(f"{metric} unscored", rate, allowed, ok, message)


def _any_pass_check(metric: str, tally: MetricTally) -> ScoreCheck:
    ok = tally.passed > 0
    if ok:
        message = f"{metric}: {tally.passed} of {tally.scored} scored rows passed (default check: at least one)"
    else:
        what = f"0 of {tally.scored} scored rows passed" if tally.scored else "no row was scored"
        message = (
            f"{metric}: {what}; a gate where nothing passed fails by default "
            f"(give --min-pass-rate {metric}=0 to accept it)"
        )
    return ScoreCheck(metric, tally.pass_rate, 0.0, ok, message, outcome="pass" if ok else "fail")


def check_gate(tallies: dict[str, MetricTally], rules: GateRules) -> ScoreGate:
    """Every floor of ``rules`` checked on the counters, metric by metric in scoring order."""
    checks: list[ScoreCheck] = []
    for metric, tally in tallies.items():
        floor = rules.rule("min_pass_rate", metric)
        checks.append(
            _any_pass_check(metric, tally)
            if floor is None
            else _pass_rate_check(metric, tally, floor)
        )
        allowed = rules.rule("max_unscored_rate", metric)
        if allowed is not None:
            checks.append(_unscored_check(metric, tally, allowed))
    return ScoreGate(tuple(checks))


def print_gate(gate: ScoreGate, stream: IO[str] | None = None) -> None:
    """``gate pass  ...`` / ``gate FAIL  ...`` per check, then ``gate passed`` or ``gate failed``."""
    from tooleval.textsafe import visible

    stream = stream or sys.stderr
    for check in gate.checks:
        print(f"gate {'pass' if check.passed else 'FAIL'}  {visible(check.message)}", file=stream)
    print(f"gate {'passed' if gate.passed else 'failed'}", file=stream)


class ResultTally:
    """The results stream of ``tooleval score``: writes through to ``out``, reads every line back.

    Each result line written is counted in :attr:`tallies` (per metric), and
    every ``len(metrics)`` lines (one row) go to ``table`` (a
    :class:`tooleval.cli._table.ScoreTableRows`) with the row's Sample:
    the one ``on_result`` saw last (the Python paths call it before each
    write) or, on the compiled kernel's path, the input line ``lines.pop()``
    hands back (a :class:`tooleval.cli._score_input.InputTap`). Memory: the
    counters, the table's rows and the results of ``keep`` metrics (the
    benchmarks' corpus-level numbers need every result).
    """

    def __init__(
        self,
        out: IO[bytes],
        metrics: list[str],
        *,
        table: Any = None,
        progress: Any = None,
        keep: set[str] | frozenset[str] = frozenset(),
        lines: Any = None,
    ) -> None:
        self.out = out
        self.metrics = list(metrics)
        self.tallies: dict[str, MetricTally] = {name: MetricTally() for name in metrics}
        self.kept: dict[str, list[Any]] = {name: [] for name in keep}
        self.rows = 0
        self.table = table
        self._progress = progress
        self._lines = lines
        self._sample: Any = None
        self._cells: list[tuple[float | None, bool | None, str]] = []
        self._rest = b""

    def on_result(self, _row_id: str, sample: Any, _result: Any) -> None:
        self._sample = sample

    def write(self, data: bytes) -> int:
        import orjson

        written = self.out.write(data)
        lines = (self._rest + data if self._rest else data).split(b"\n")
        self._rest = lines.pop()
        for line in lines:
            if line:
                self._take(orjson.loads(line))
        return written

    def flush(self) -> None:
        self.out.flush()

    def _take(self, found: dict[str, Any]) -> None:
        metric, score, passed = found.get("metric"), found.get("score"), found.get("passed")
        self.tallies.setdefault(str(metric), MetricTally()).add(score, passed)
        if metric in self.kept:
            from tooleval.model import Result

            self.kept[metric].append(Result.from_dict(found))
        self._cells.append((score, passed, str(found.get("reason") or "")))
        if len(self._cells) < len(self.metrics):
            return
        sample: Any = self._sample
        if self._lines is not None:
            line = self._lines.pop()
            sample = lambda: self._lines.sample_of(line)  # noqa: E731  (parsed only if shown)
        if self.table is not None:
            self.table.add(str(found.get("id")), sample, self._cells)
        self._cells = []
        self.rows += 1
        if self._progress is not None and self.rows % 128 == 0:
            self._progress.update(self.rows)


class StreamedTally:
    """What the compiled kernel's stream counted, in the shape of :class:`ResultTally`'s figures.

    The kernel counts every result as it writes it (per metric: rows, passed,
    failed, unscored, the score sum in row order: the same sums as
    :class:`MetricTally` makes) and keeps the first rows of each kind for the
    table, so no result line is read back.
    """

    def __init__(self, tallies: dict[str, MetricTally], rows: int, table: Any) -> None:
        self.tallies = tallies
        self.rows = rows
        self.table = table
        self.kept: dict[str, list[Any]] = {}  # corpus metrics never take this path

    @classmethod
    def of(cls, counted: Any, rows: int, *, limit: int | None, sample_of: Any) -> StreamedTally:
        """From a :class:`tooleval.scoring.StreamTally`; the table's rows when ``limit`` is given."""
        tallies = {
            name: MetricTally(
                rows=n, passed=passed, failed=failed, unscored=unscored, score_sum=total
            )
            for name, (n, passed, failed, unscored, total) in counted.metrics.items()
        }
        table = None
        if limit is not None:
            from tooleval.cli._table import stream_table_rows

            table = stream_table_rows(counted.statuses, counted.kept, limit, sample_of)
        return cls(tallies, rows, table)
