"""Shared input handling and call analysis for the deterministic metrics.

Every call-comparing metric goes through :func:`analyse`: one optimal
pairing of expected with actual calls (optionally under ordering
constraints), then the diagnosis built from it. The metrics differ only in
how they turn that pairing into a score.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from tooleval.errors import ConfigError
from tooleval.matching.alignment import CallTable, call_entry, order_violations
from tooleval.matching.assignment import transitive_closure
from tooleval.matching.config import ArgumentComparator, resolve_comparator
from tooleval.metrics.reasons import capped, short
from tooleval.model import (
    ArgumentCheck,
    Diagnosis,
    ExpectedTools,
    Result,
    ToolCall,
    as_expected,
)
from tooleval.model.calls import as_tool_call
from tooleval.model.metric import EMPTY_CHOICES, ORDERS, THRESHOLD_HELP, Param, check_option

__all__ = [
    "EMPTY_CHOICES",
    "ARGS_HELP",
    "CALLS",
    "EMPTY_HELP",
    "ORDERS",
    "THRESHOLD_HELP",
    "UNBOUND",
    "Analysis",
    "ExpectedLike",
    "Inputs",
    "actual_calls",
    "analyse",
    "call_inputs",
    "calls_of",
    "check_args",
    "check_argument_keys",
    "choice",
    "comparator",
    "empty_result",
    "expected_tools",
    "has_cycle",
    "keys_selector",
    "prepare_args",
    "threshold_value",
    "unbound",
]

ExpectedLike = ExpectedTools | Sequence[ToolCall | str] | None
#: What a call metric's body gets, made canonical by ``@metric``: expected, actual, args.
Inputs = tuple[ExpectedTools | None, list[ToolCall] | None, ArgumentComparator]


def expected_tools(expected: ExpectedLike, *, metric: str) -> ExpectedTools | None:
    """Normalise ``expected`` (names, ToolCalls or ExpectedTools; None stays None)."""
    if type(expected) is ExpectedTools:
        return expected
    if expected is not None and not isinstance(expected, ExpectedTools | Sequence):
        raise ConfigError(
            f"{metric}: expected must be ExpectedTools or a list of calls/names, "
            f"got {type(expected).__name__}",
            field="expected",
        )
    if isinstance(expected, str):
        raise ConfigError(
            f"{metric}: expected must be a list of calls or names, not one string "
            f"({short(expected, 200)}); parse text like 'a, b' with "
            "tooleval.formats.parse_expected_tools",
            field="expected",
        )
    return as_expected(expected)


UNBOUND = "no expected_tools bound for this row"

#: The shared help text of ``empty`` (each metric may add what its case is exactly).
EMPTY_HELP = "nothing expected and nothing called: perfect (1.0), zero (0.0) or unscored"
#: The shared help text of ``args``.
ARGS_HELP = (
    "argument matcher: a name (exact, normalized, numeric, similarity, levenshtein, "
    "jaro_winkler, any_of, ignore) or a config {default, keys, tools} (see docs/metrics.md)"
)
#: The Sample fields a call metric reads.
CALLS = ("tools_called", "expected_tools")


def calls_of(function: Any) -> Any:
    """The sample form of a call metric: ``function(expected_tools, actual calls, **options)``.

    >>> from tooleval.model import Sample
    >>> calls_of(lambda expected, actual: (expected.names, actual))(
    ...     Sample(tools_called=[], expected_tools=["a"]))
    (['a'], [])
    """

    name = function.__name__  # a declared metric's function bears its name

    def score(sample: Any, **options: Any) -> Result:
        # what a Sample holds is checked too (a field may be assigned after construction)
        expected = expected_tools(sample.expected_tools, metric=name)
        result: Result = function(
            expected, actual_calls(sample.actual_calls(), metric=name), **options
        )
        return result

    score.__module__ = function.__module__
    score.__qualname__ = f"calls_of({function.__qualname__})"
    return score


def empty_result(
    metric: str,
    empty: str,
    summary: str,
    *,
    params: dict[str, Any],
    threshold: float | None = None,
    diagnosis: Diagnosis | None = None,
) -> Result:
    """The result of a row with nothing expected and nothing called, as ``empty`` says.

    >>> empty_result("m", "zero", "no calls expected and none made", params={}).reason
    "no calls expected and none made (empty='zero' scores 0.0)"
    """
    if empty == "unscored":
        return Result.unscored(
            metric,
            f"{summary} (empty='unscored')",
            params=params,
            threshold=threshold,
            diagnosis=diagnosis,
        )
    score = 1.0 if empty == "perfect" else 0.0
    return Result.scored(
        metric,
        score,
        reason=f"{summary} (empty={empty!r} scores {score})",
        params=params,
        threshold=threshold,
        diagnosis=diagnosis,
    )


def unbound(
    metric: str, params: dict[str, Any], threshold: float | None, *, hint: str = ""
) -> Result:
    """The unscored result for a row with no ``expected_tools`` value (never a 0)."""
    reason = f"{UNBOUND} ({hint})" if hint else UNBOUND
    return Result.unscored(metric, reason, params=params, threshold=threshold)


def actual_calls(actual: Sequence[ToolCall | str] | None, *, metric: str) -> list[ToolCall]:
    """Normalise ``actual`` to a list of ToolCalls (bare names have no arguments)."""
    if actual is None:
        return []
    if type(actual) is list:
        for call in actual:
            if type(call) is not ToolCall:
                break
        else:
            return list(actual)  # already ToolCalls (what Sample.actual_calls gives)
    if isinstance(actual, str) or not isinstance(actual, Sequence):
        raise ConfigError(
            f"{metric}: actual must be a list of ToolCalls, got {type(actual).__name__}",
            field="actual",
        )
    return [as_tool_call(call, where=f"actual[{i}]", who=metric) for i, call in enumerate(actual)]


def prepare_args(params: dict[str, Any]) -> dict[str, Any]:
    """Resolve the ``args`` matcher spec once per bound metric instead of once per row.

    The spec was checked when the metric was bound or called (:func:`check_args`);
    ``@metric`` does this for a direct call too, so a body gets a comparator.
    """
    params["args"] = comparator(params["args"], metric="")
    return params


def call_inputs(
    metric: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """A call metric's ``(expected, actual)`` made what a Sample gives (``@metric(inputs=...)``).

    ``expected`` becomes ExpectedTools (None stays None: unscored), ``actual``
    a list of ToolCalls (None stays None); given by position or by name.

    >>> (exp, act), _ = call_inputs("m", (["a"], ["b"]), {})
    >>> exp.names, act[0].name
    (['a'], 'b')
    """
    names = ("expected", "actual")
    named = [key for key in names if key in kwargs]
    if len(args) + len(named) != 2 or set(named) & set(names[: len(args)]):
        return args, kwargs  # the function's own TypeError says what is wrong
    given = dict(zip(names, args, strict=False)) | {key: kwargs[key] for key in named}
    rest = {key: value for key, value in kwargs.items() if key not in names}
    actual = given["actual"]
    canonical = (
        expected_tools(given["expected"], metric=metric),
        None if actual is None else actual_calls(actual, metric=metric),
    )
    return canonical, rest


def check_args(value: Any) -> Any:
    """The validator of every ``args`` option: the matcher spec must resolve (kept as given).

    >>> check_args("normalized")
    'normalized'
    >>> check_args("exactt")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    tooleval.errors.ConfigError: field args...: unknown argument matcher 'exactt' (did you mean 'exact'?); ...
    """
    try:
        resolve_comparator(value)
    except ConfigError as exc:
        raise exc.with_context(field="args") from None
    except Exception as exc:  # a spec of the wrong shape: say so, naming the option
        raise ConfigError(
            f"is not a matcher spec ({type(exc).__name__}: {exc}); give a matcher name, "
            '{"default": ..., "tools": ..., "keys": ...} or a callable',
            field="args",
        ) from None
    return value


def check_argument_keys(value: Any) -> Any:
    """The validator of ``argument_keys`` (a list, ``{tool: [keys]}``, text or null; kept as given)."""
    try:
        keys_selector(value, metric="")
    except ConfigError as exc:  # "{metric}: argument_keys must ...": the caller names the metric
        raise ConfigError(exc.message.removeprefix(": "), field="argument_keys") from None
    return value


def choice(value: Any, name: str, options: Collection[str], *, metric: str) -> str:
    """Validate an enumerated option, naming the valid values (canonical spelling returned)."""
    chosen: str = check_option(metric, name, value, Param(None, "", choices=tuple(options)))
    return chosen


def threshold_value(value: Any, *, metric: str) -> float | None:
    """``threshold`` as a float (checked by :func:`tooleval.model.metric.check_threshold`)."""
    threshold: float | None = check_option(metric, "threshold", value, _THRESHOLD)
    return threshold


_THRESHOLD = Param(None, THRESHOLD_HELP)


# Matcher names whose meaning can never change (register_matcher refuses them),
# so one comparator per name serves every call.
_BUILTIN_NAMES = frozenset(
    {"exact", "normalized", "normalised", "numeric", "similarity", "levenshtein"}
    | {"jaro_winkler", "ignore", "any_of"}
)
_shared: dict[str, ArgumentComparator] = {}


def comparator(args: Any, *, metric: str) -> ArgumentComparator:
    if type(args) is ArgumentComparator:
        return args
    if type(args) is str and args in _shared:
        return _shared[args]
    try:
        resolved = resolve_comparator(args)
    except ConfigError as exc:
        raise exc.with_context(field="args") from None
    if type(args) is str and args in _BUILTIN_NAMES:
        _shared[args] = resolved
    return resolved


@dataclass(slots=True)
class Analysis:
    """One pairing of expected with actual calls and what it says."""

    table: CallTable
    counted: list[tuple[int, int]]  # pairs that earn credit (respecting order if asked)
    free: list[tuple[int, int]]  # optimal pairing ignoring order
    near: list[tuple[int, int]]  # same name, arguments do not match
    violations: list[str] = field(default_factory=list)

    @property
    def expected(self) -> list[ToolCall]:
        return self.table.expected

    @property
    def actual(self) -> list[ToolCall]:
        return self.table.actual

    def missing_rows(self) -> list[int]:
        n = len(self.expected)
        if len(self.free) == n:  # a pairing uses each row once: every row is used
            return []
        used = {i for i, _ in self.free} | {i for i, _ in self.near} | {i for i, _ in self.counted}
        return [i for i in range(n) if i not in used]

    def extra_cols(self) -> list[int]:
        m = len(self.actual)
        if len(self.free) == m:
            return []
        used = {j for _, j in self.free} | {j for _, j in self.near} | {j for _, j in self.counted}
        return [j for j in range(m) if j not in used]

    def checks(self, pairs: Iterable[tuple[int, int]] | None = None) -> list[ArgumentCheck]:
        """Argument checks of the given pairs (default: counted, out-of-order, near misses)."""
        if pairs is None:
            rows = {i for i, _ in self.counted}
            cols = {j for _, j in self.counted}
            out_of_order = [(i, j) for i, j in self.free if i not in rows and j not in cols]
            pairs = [*self.counted, *out_of_order, *self.near]
        out: list[ArgumentCheck] = []
        for i, j in sorted(pairs):
            comparison = self.table.comparison(i, j)
            if comparison is not None:
                out.extend(comparison.checks)
        return out

    def diagnosis(
        self,
        *,
        report_missing: bool = True,
        report_extra: bool = True,
        pairs: Iterable[tuple[int, int]] | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> Diagnosis:
        # "pairs" stays the first key; the generic list is built only when the
        # metric does not give its own.
        info: dict[str, Any] = {"pairs": None}
        parse_errors = [
            {"name": c.name, "index": j, "error": c.parse_error}
            for j, c in enumerate(self.actual)
            if c.parse_error is not None
        ]
        if parse_errors:
            info["parse_errors"] = parse_errors
        if details:
            info.update(details)
        if not details or "pairs" not in details:
            info["pairs"] = [
                {"expected_index": i, "actual_index": j, "counted": True} for i, j in self.counted
            ]
        missing = self.missing_rows() if report_missing else []
        extra = self.extra_cols() if report_extra else []
        return Diagnosis(
            missing=[_capped_entry(call_entry(self.expected[i], i)) for i in missing],
            extra=[_capped_entry(call_entry(self.actual[j], j)) for j in extra],
            order_violations=list(self.violations),
            arguments=[_capped_check(c) for c in self.checks(pairs)],
            details=info,
        )


def _capped_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """A missing or extra call's entry, its arguments cut past ``CAP_BYTES`` (see ``capped``)."""
    args = capped(entry["args"])
    if args is not entry["args"]:
        entry["args"] = args
    return entry


def _capped_check(check: ArgumentCheck) -> ArgumentCheck:
    """An argument check whose values are cut past ``CAP_BYTES``; the same object when none is."""
    expected, actual = capped(check.expected), capped(check.actual)
    if expected is check.expected and actual is check.actual:
        return check
    return replace(check, expected=expected, actual=actual)


def analyse(
    expected: Sequence[ToolCall],
    actual: Sequence[ToolCall],
    comparator: ArgumentComparator,
    *,
    before: Iterable[tuple[int, int]] | None = None,
    keys_for: Any = None,
    extra_keys: str = "ignore",
) -> Analysis:
    """Pair ``expected`` with ``actual``; ``before`` adds ordering constraints.

    ``before=None`` ignores order. Otherwise the counted pairs are the best
    pairing that respects the constraints; calls that pair only when order is
    ignored are reported as order violations, not as missing or extra.
    """
    table = CallTable(expected, actual, comparator, keys_for=keys_for, extra_keys=extra_keys)
    free = table.match_unordered()
    counted = free
    violations: list[str] = []
    if before is not None:
        constraints = tuple(before)
        counted = table.match_partial_order(constraints)
        if len(counted) < len(free):
            violations = order_violations(table.expected, free, constraints)
    paired_rows = {p[0] for p in free}
    paired_cols = {p[1] for p in free}
    rows = [i for i in range(len(expected)) if i not in paired_rows]
    cols = [j for j in range(len(actual)) if j not in paired_cols]
    near = table.match_leftovers(rows, cols)
    return Analysis(table, counted, free, near, violations)


def has_cycle(expected: ExpectedTools) -> list[int]:
    """Indices of expected calls on an ordering cycle (empty when consistent)."""
    closure = transitive_closure(len(expected), expected.order_pairs())
    return sorted(i for i, j in closure if i == j)


def keys_selector(argument_keys: Any, *, metric: str) -> tuple[Any, Any]:
    """Validate ``argument_keys`` and return ``(keys_for, json_value)``.

    A list applies to every tool; a mapping ``{tool: [keys]}`` to the named
    tools (other tools compare every key); empty or None means every key.
    """
    if argument_keys is None or argument_keys == [] or argument_keys == {}:
        return None, None
    if isinstance(argument_keys, str):
        argument_keys = [k.strip() for k in argument_keys.split(",") if k.strip()]
    if isinstance(argument_keys, Mapping):
        per_tool: dict[str, list[str]] = {}
        for tool, keys in argument_keys.items():
            per_tool[str(tool)] = _key_list(keys, field=f"argument_keys.{tool}", metric=metric)
        return (lambda tool: per_tool.get(tool) or None), per_tool
    keys = _key_list(argument_keys, field="argument_keys", metric=metric)
    return (lambda tool: keys or None), keys


def _key_list(value: Any, *, field: str, metric: str) -> list[str]:
    if isinstance(value, str):
        value = [k.strip() for k in value.split(",") if k.strip()]
    if not isinstance(value, Sequence) or not all(isinstance(k, str) for k in value):
        raise ConfigError(
            f"{metric}: {field} must be a list of argument names (or a mapping tool -> list), "
            f"got {short(value, 200)}",
            field=field,
        )
    return list(value)
