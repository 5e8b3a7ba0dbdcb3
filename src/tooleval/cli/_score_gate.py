"""The gate options of ``tooleval score``, checked on the tallies of its results.

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

>>> from tooleval.stats.tally import Tally
>>> rules = parse_gate_rules(["0.5"], ["f1=0.2"], ["f1"])
>>> [c.passed for c in check_gate({"f1": Tally(passed=3, failed=3, unscored=2)}, rules).checks]
[True, False]
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING

from tooleval.errors import ConfigError, did_you_mean

if TYPE_CHECKING:
    from tooleval.analysis.floors import GateResult
    from tooleval.stats.tally import Tally

__all__ = [
    "GateRules",
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
