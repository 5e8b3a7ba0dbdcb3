"""Turn an ``args=`` option into matchers, and compare the arguments of two calls.

Every metric takes one ``args=`` option. It may be:

* a matcher name: ``"exact"`` (default), ``"normalized"``, ``"numeric"``,
  ``"similarity"`` / ``"levenshtein"`` / ``"jaro_winkler"``, ``"any_of"``,
  ``"ignore"``, or a name given to :func:`register_matcher`;
* a one-key mapping naming a matcher with options,
  ``{"numeric": {"abs_tol": 0.01}}`` (or ``{"name": "numeric", "abs_tol": 0.01}``);
* a :class:`~tooleval.matching.base.Matcher` object or any callable
  ``(expected, actual) -> float | bool``;
* a full configuration with per-tool and per-key matchers::

      {"default": "exact",
       "keys": {"query": "normalized"},
       "tools": {"issue_refund": {"amount": {"numeric": {"abs_tol": 0.01}},
                                  "request_id": "ignore",
                                  "*": "exact"}}}

  Keys may be dot paths into nested objects (``"address.city"``). For one
  argument the most specific entry wins: ``tools[tool][key]``, then
  ``keys[key]``, then ``tools[tool]["*"]``, then ``default``;
* the same configuration as JSON text (what ``--option args='{...}'`` gives).

:func:`resolve_comparator` builds an :class:`ArgumentComparator` from any of
these, and :meth:`ArgumentComparator.spec` gives the JSON-safe form stored in
``Result.params`` so a run can be re-scored.

>>> cmp = resolve_comparator({"tools": {"issue_refund": {"request_id": "ignore"}}})
>>> from tooleval.model import ToolCall
>>> out = cmp.compare(ToolCall("issue_refund", {"order_id": "4471", "request_id": "x"}),
...                   ToolCall("issue_refund", {"order_id": "4471", "request_id": "y"}))
>>> out.score, [c.key for c in out.checks]
(1.0, ['order_id'])
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from typing import Any

from tooleval.errors import ConfigError
from tooleval.matching.base import Matcher
from tooleval.matching.json_values import stored
from tooleval.matching.specs import (
    _load_json,
    _matcher_spec,
    matcher_names,
    register_matcher,
    resolve_matcher,
)
from tooleval.matching.values import Ignore
from tooleval.model import MISSING, AnyOf, ArgumentCheck, ToolCall

__all__ = [
    "ArgumentComparator",
    "ArgumentComparison",
    "matcher_names",
    "register_matcher",
    "resolve_comparator",
    "resolve_matcher",
]

_CONFIG_KEYS = frozenset({"default", "tools", "keys"})
_NO_KEYS: Mapping[str, Matcher] = {}  # the per-key matchers of a tool without any
# Types that are never a Mapping (skips the ABC check for the common leaf values).
_JSON_SCALARS = frozenset({str, int, float, bool, type(None)})
# ---------------------------------------------------------------- comparing two calls


# Not frozen (built for every compared pair; a frozen dataclass pays an
# object.__setattr__ per field); unsafe_hash keeps the field-wise hash.
@dataclass(slots=True, unsafe_hash=True)
class ArgumentComparison:
    """How well one actual call's arguments match one expected call's.

    ``score`` is the mean over compared keys (1.0 when none are compared),
    ``matches`` is true when every compared key reaches its matcher's
    ``pass_score``, and ``checks`` holds one :class:`ArgumentCheck` per key.
    """

    score: float
    matches: bool
    checks: tuple[ArgumentCheck, ...] = ()


class ArgumentComparator:
    """Matchers for every (tool, argument) and the rule that combines them.

    Argument accuracy of a pair is the mean over the expected call's keys
    (nested keys with their own matcher are compared leaf by leaf); a key the
    actual call lacks scores what its matcher gives :data:`MISSING` (0 for all
    built-ins except ``any_of`` with ``optional``); keys the actual call has in
    excess are ignored unless ``extra_keys="mismatch"``; an expected call with
    ``args={}`` matches only a call without arguments; an expected call with
    ``args=None`` (names only) always scores 1.0; a call whose arguments could
    not be parsed matches no argument.

    >>> from tooleval.matching.values import Normalized
    >>> c = ArgumentComparator(keys={"query": Normalized()})
    >>> c.compare(ToolCall("s", {"query": "Paris ", "n": 3}), ToolCall("s", {"query": "paris", "n": 4})).score
    0.5
    """

    def __init__(
        self,
        default: Any = "exact",
        *,
        tools: Mapping[str, Mapping[str, Any]] | None = None,
        keys: Mapping[str, Any] | None = None,
    ) -> None:
        self.default = resolve_matcher(default, field="args.default")
        self.keys = {
            str(k): resolve_matcher(v, field=f"args.keys.{k}") for k, v in (keys or {}).items()
        }
        if tools is not None and not isinstance(tools, Mapping):
            raise ConfigError(
                f"args.tools must map tool names to keys, got {tools!r}", field="args.tools"
            )
        self.tools: dict[str, dict[str, Matcher]] = {}
        for tool, per_key in (tools or {}).items():
            if not isinstance(per_key, Mapping):
                raise ConfigError(
                    f"args.tools.{tool} must map argument keys to matchers, got {per_key!r}",
                    field=f"args.tools.{tool}",
                )
            self.tools[str(tool)] = {
                str(k): resolve_matcher(v, field=f"args.tools.{tool}.{k}")
                for k, v in per_key.items()
            }

    def spec(self) -> Any:
        """JSON-safe configuration; ``resolve_comparator(c.spec())`` rebuilds it."""
        if not self.keys and not self.tools:
            return _matcher_spec(self.default)
        out: dict[str, Any] = {"default": _matcher_spec(self.default)}
        if self.keys:
            out["keys"] = {k: _matcher_spec(m) for k, m in self.keys.items()}
        if self.tools:
            out["tools"] = {
                t: {k: _matcher_spec(m) for k, m in per.items()} for t, per in self.tools.items()
            }
        return out

    def __repr__(self) -> str:
        return f"ArgumentComparator({self.spec()!r})"

    def matcher_for(self, tool: str, path: str) -> Matcher:
        """The matcher that compares argument ``path`` of ``tool``."""
        return self._explicit(tool, path) or self._fallback(tool)

    def _fallback(self, tool: str) -> Matcher:
        """The matcher of a key of ``tool`` that has none of its own."""
        return self.tools.get(tool, _NO_KEYS).get("*") or self.default

    def _explicit(self, tool: str, path: str) -> Matcher | None:
        per_tool = self.tools.get(tool, _NO_KEYS)
        if path in per_tool:
            return per_tool[path]
        return self.keys.get(path)

    def _configured_below(self, tool: str, path: str) -> bool:
        if not self.keys and not self.tools:
            return False
        prefix = path + "."
        return any(k.startswith(prefix) for k in self.tools.get(tool, {})) or any(
            k.startswith(prefix) for k in self.keys
        )

    def compare(
        self,
        expected: ToolCall,
        actual: ToolCall,
        *,
        keys: Collection[str] | None = None,
        extra_keys: str = "ignore",
        expected_index: int | None = None,
        actual_index: int | None = None,
    ) -> ArgumentComparison:
        """Compare the arguments of one expected call with one actual call.

        ``keys`` limits the comparison to those argument keys (dot paths
        allowed); ``None`` or empty compares every key. ``extra_keys`` is
        ``"ignore"`` or ``"mismatch"`` (an actual key absent from the expected
        call then counts as a failed key).
        """
        return self._compare(expected, actual, keys, extra_keys, expected_index, actual_index)

    def _compare(
        self,
        expected: ToolCall,
        actual: ToolCall,
        keys: Collection[str] | None,
        extra_keys: str,
        expected_index: int | None,
        actual_index: int | None,
    ) -> ArgumentComparison:
        """:meth:`compare` (positional, for :class:`~tooleval.matching.alignment.CallTable`)."""
        if expected.args is None:
            return ArgumentComparison(1.0, True)
        if expected.parse_error is not None:
            return _invalid_expected(expected, actual, expected_index, actual_index)
        return self._walk(expected, actual, keys, extra_keys, expected_index, actual_index, True)

    def score(
        self,
        expected: ToolCall,
        actual: ToolCall,
        *,
        keys: Collection[str] | None = None,
        extra_keys: str = "ignore",
    ) -> tuple[float, bool]:
        """``(score, matches)`` of :meth:`compare`, without building the checks.

        Pairing needs only these two numbers for every same-name pair; the
        per-key checks are built later, for the pairs a diagnosis shows.

        >>> resolve_comparator().score(ToolCall("f", {"a": 1, "b": 2}), ToolCall("f", {"a": 1}))
        (0.5, False)
        """
        if expected.args is None:
            return 1.0, True
        if expected.parse_error is not None:
            return 0.0, False  # an expected call with invalid arguments matches nothing
        out = self._walk(expected, actual, keys, extra_keys, None, None, False)
        return out.score, out.matches

    def _walk(
        self,
        expected: ToolCall,
        actual: ToolCall,
        keys: Collection[str] | None,
        extra_keys: str,
        expected_index: int | None,
        actual_index: int | None,
        record: bool,
    ) -> ArgumentComparison:
        selected = frozenset(keys) if keys else None
        walk = _Walk(self, expected.name, selected, extra_keys, expected_index, actual_index)
        walk.record = record
        actual_args: Any = MISSING if actual.parse_error is not None else actual.arguments
        assert expected.args is not None  # both callers return early without arguments
        scores = walk.compare_object("", expected.args, actual_args, top=True)
        if actual.parse_error is not None and record:
            # Unreadable arguments match nothing; say so instead of "missing".
            walk.checks = [replace(c, matcher="parse_error") for c in walk.checks]
        if not scores:
            return ArgumentComparison(1.0, True, tuple(walk.checks))
        score = math.fsum(s for s, _ in scores) / len(scores)
        return ArgumentComparison(score, all(ok for _, ok in scores), tuple(walk.checks))


def _invalid_expected(
    expected: ToolCall, actual: ToolCall, expected_index: int | None, actual_index: int | None
) -> ArgumentComparison:
    """An expected call whose arguments are not an object matches no call (one failed check)."""
    check = ArgumentCheck(
        tool=expected.name,
        key="*",
        expected=expected.raw_arguments,
        actual=actual.raw_arguments if actual.parse_error is not None else actual.args,
        score=0.0,
        expected_index=expected_index,
        actual_index=actual_index,
        matcher="parse_error",
    )
    return ArgumentComparison(0.0, False, (check,))


class _Walk:
    """One comparison of two argument objects, collecting checks as it goes."""

    def __init__(
        self,
        comparator: ArgumentComparator,
        tool: str,
        selected: frozenset[str] | None,
        extra_keys: str,
        expected_index: int | None,
        actual_index: int | None,
    ) -> None:
        if extra_keys not in ("ignore", "mismatch"):
            raise ConfigError(
                f"extra_keys must be 'ignore' or 'mismatch', got {extra_keys!r}", field="extra_keys"
            )
        self.comparator = comparator
        self.tool = tool
        self.selected = selected
        self.extra_keys = extra_keys
        self.indices = (expected_index, actual_index)
        self.checks: list[ArgumentCheck] = []
        # Resolved once per walk: with no per-key or per-tool matcher configured,
        # every key takes the default and no key has matchers configured below it.
        self.per_key = bool(comparator.keys or comparator.tools)
        self.fallback = comparator._fallback(tool)
        self.record = True  # False: scores only (no checks, no json_safe copies)

    def _wanted(self, path: str) -> bool:
        """Is ``path`` (or something below it) among the selected keys?"""
        if self.selected is None:
            return True
        parts = path.split(".")
        if any(".".join(parts[:n]) in self.selected for n in range(1, len(parts) + 1)):
            return True
        return any(k.startswith(path + ".") for k in self.selected)

    def _fully_selected(self, path: str) -> bool:
        if self.selected is None:
            return True
        parts = path.split(".")
        return any(".".join(parts[:n]) in self.selected for n in range(1, len(parts) + 1))

    def compare_object(
        self, prefix: str, expected: Mapping[str, Any], actual: Any, *, top: bool = False
    ) -> list[tuple[float, bool]]:
        scores: list[tuple[float, bool]] = []
        actual_map = actual if type(actual) is dict or isinstance(actual, Mapping) else {}
        everything = self.selected is None
        compare_value = self.compare_value
        for key, value in expected.items():
            path = f"{prefix}{key}"
            if not everything and not self._wanted(path):
                continue
            got = actual_map.get(key, MISSING) if actual is not MISSING else MISSING
            scores.extend(compare_value(path, value, got))
        # An expected object with no keys asks for "no arguments": any actual key
        # is then a defect, as it is everywhere under extra_keys="mismatch".
        strict_extra = self.extra_keys == "mismatch" or (top and not expected)
        if strict_extra and (self.selected is None or not top):
            if actual is MISSING and top and not expected:
                scores.append(self._record(prefix + "*", {}, MISSING, 0.0, False, "parse_error"))
            for key, value in actual_map.items():
                path = f"{prefix}{key}"
                if key in expected or not self._wanted(path):
                    continue
                matcher = self.comparator.matcher_for(self.tool, path)
                if isinstance(matcher, Ignore):
                    continue
                scores.append(self._record(path, None, value, 0.0, False, "unexpected_key"))
        return scores

    def compare_value(self, path: str, expected: Any, actual: Any) -> list[tuple[float, bool]]:
        comparator = self.comparator
        explicit = comparator._explicit(self.tool, path) if self.per_key else None
        kind = type(expected)
        mapping = kind is dict or (kind not in _JSON_SCALARS and isinstance(expected, Mapping))
        descend = mapping and (
            (explicit is None and self.per_key and comparator._configured_below(self.tool, path))
            or not self._fully_selected(path)
        )
        if descend:
            child = self.compare_object(path + ".", expected, actual)
            if not child:
                return []
            mean = math.fsum(s for s, _ in child) / len(child)
            return [(mean, all(ok for _, ok in child))]
        matcher = explicit or self.fallback
        if isinstance(matcher, Ignore):
            return []
        if isinstance(expected, AnyOf):
            # An expected AnyOf carries its own acceptable values.
            matcher = expected
        score = float(matcher(expected, actual))
        ok = score >= float(getattr(matcher, "pass_score", 1.0))
        return [self._record(path, expected, actual, score, ok, matcher.name)]

    def _record(
        self, path: str, expected: Any, actual: Any, score: float, ok: bool, matcher: str
    ) -> tuple[float, bool]:
        if not self.record:
            return score, ok
        self.checks.append(
            ArgumentCheck(
                tool=self.tool,
                key=path,
                expected=stored(expected),
                actual=None if actual is MISSING else stored(actual),
                score=score,
                expected_index=self.indices[0],
                actual_index=self.indices[1],
                matcher=matcher,
                missing=actual is MISSING,
            )
        )
        return score, ok


def resolve_comparator(spec: Any = "exact") -> ArgumentComparator:
    """Build the comparator for an ``args=`` option (see the module docs).

    >>> resolve_comparator('{"default": "normalized"}').spec()
    'normalized'
    >>> resolve_comparator({"keys": {"amount": {"numeric": {"abs_tol": 1}}}}).spec()["keys"]
    {'amount': {'numeric': {'abs_tol': 1, 'rel_tol': 1e-09, 'int_float_equal': True}}}
    """
    if isinstance(spec, ArgumentComparator):
        return spec
    if spec is None:
        return ArgumentComparator()
    if isinstance(spec, str) and spec.strip().startswith("{"):
        spec = _load_json(spec.strip(), "args")
    if isinstance(spec, Mapping) and spec and set(spec) <= _CONFIG_KEYS:
        return ArgumentComparator(
            spec.get("default", "exact"), tools=spec.get("tools"), keys=spec.get("keys")
        )
    return ArgumentComparator(spec)
