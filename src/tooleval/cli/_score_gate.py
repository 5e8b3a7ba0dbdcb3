"""The gate options of ``tooleval score`` and the tallies of its results.

``--min-pass-rate [METRIC=]RATE`` and ``--max-unscored-rate [METRIC=]RATE``
(repeatable; without ``METRIC=`` for every metric, a ``METRIC=`` rule
replacing it for that metric) are parsed here and checked by the one gate,
:func:`tooleval.analysis.gate_checks.tally_gate`, on the
:class:`~tooleval.stats.tally.Tally` of each metric kept while the results are
written (a few numbers per metric, whatever the file's size). An unscored row
is never a pass or a failure; it counts only against ``--max-unscored-rate``.
As in ``tooleval run``, a metric no pass-rate floor names still has the default
check "at least one row passed" once any gate option is given, and the exit
code is 0 passed, 1 failed (2 stays usage or input errors).

>>> rules = parse_gate_rules(["0.5"], ["f1=0.2"], ["f1"])
>>> [c.passed for c in check_gate({"f1": Tally(passed=3, failed=3, unscored=2)}, rules).checks]
[True, False]
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

from tooleval.errors import ConfigError, did_you_mean
from tooleval.stats.tally import Tally

if TYPE_CHECKING:
    from tooleval.analysis.floors import GateResult

__all__ = [
    "GateRules",
    "ResultTally",
    "StreamedTally",
    "check_gate",
    "parse_gate_rules",
    "print_gate",
]


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


def check_gate(tallies: Mapping[str, Tally], rules: GateRules) -> GateResult:
    """Every floor of ``rules`` checked on the tallies by the one gate (:mod:`tooleval.analysis`)."""
    from tooleval.analysis.gate_checks import tally_gate

    return tally_gate(
        tallies, min_pass_rate=rules.min_pass_rate, max_unscored_rate=rules.max_unscored_rate
    )


def print_gate(gate: GateResult, stream: IO[str] | None = None) -> None:
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
        self.tallies: dict[str, Tally] = {name: Tally() for name in metrics}
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
        self.tallies.setdefault(str(metric), Tally()).add(score, passed)
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
    :class:`~tooleval.stats.tally.Tally` makes; no sum of squares) and keeps the first rows of each kind for the
    table, so no result line is read back.
    """

    def __init__(self, tallies: dict[str, Tally], rows: int, table: Any) -> None:
        self.tallies = tallies
        self.rows = rows
        self.table = table
        self.kept: dict[str, list[Any]] = {}  # corpus metrics never take this path

    @classmethod
    def of(cls, counted: Any, rows: int, *, limit: int | None, sample_of: Any) -> StreamedTally:
        """From a :class:`tooleval.scoring.StreamTally`; the table's rows when ``limit`` is given."""
        tallies = {
            name: Tally(passed, failed, 0, unscored, passed + failed, total, square_sum=None)
            for name, (_n, passed, failed, unscored, total) in counted.metrics.items()
        }
        table = None
        if limit is not None:
            from tooleval.cli._table import stream_table_rows

            table = stream_table_rows(counted.statuses, counted.kept, limit, sample_of)
        return cls(tallies, rows, table)
