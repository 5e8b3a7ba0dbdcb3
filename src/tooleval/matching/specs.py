"""Matcher specifications: names, options and registered matchers → Matcher objects.

A spec is a matcher name (``"exact"``, ``"normalized"``, ``"numeric"``,
``"similarity"``, ``"levenshtein"``, ``"jaro_winkler"``, ``"any_of"``,
``"ignore"``, ``"unordered"``, ``"numeric_text"`` or a name given to :func:`register_matcher`), a one-key mapping
naming a matcher with options, a Matcher object, or a callable. The
per-tool / per-key configuration that combines specs lives in
:mod:`tooleval.matching.config`.

>>> resolve_matcher({"numeric": {"abs_tol": 0.5}})(10, 10.4)
1.0
>>> "exact" in matcher_names()
True
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tooleval.errors import ConfigError, did_you_mean
from tooleval.matching.base import Matcher
from tooleval.matching.structural import NumericText, Unordered
from tooleval.matching.values import (
    CallableMatcher,
    Exact,
    Ignore,
    Normalized,
    Numeric,
    Similarity,
    deep_equal,
)
from tooleval.model import MISSING, AnyOf

__all__ = ["matcher_names", "register_matcher", "resolve_matcher"]

_registered: dict[str, Matcher] = {}


@dataclass(frozen=True, slots=True)
class _ExpectedAlternatives:
    """``"any_of"`` by name: the expected value lists the acceptable values.

    An expected ``AnyOf`` is used as is; an expected list means "any of
    these"; any other expected value must equal the actual one.
    """

    name: str = "any_of"
    pass_score: float = 1.0

    def __call__(self, expected: Any, actual: Any) -> float:
        if isinstance(expected, AnyOf):
            return expected.match(actual)
        if isinstance(expected, list | tuple):
            if actual is MISSING:
                return 0.0
            return 1.0 if any(deep_equal(e, actual) for e in expected) else 0.0
        return 1.0 if deep_equal(expected, actual) else 0.0

    def spec(self) -> Any:
        return "any_of"


def _build_any_of(options: Any) -> Matcher:
    if options is None:
        return _ExpectedAlternatives()
    if isinstance(options, list | tuple):
        return AnyOf(options)
    if isinstance(options, Mapping):
        unknown = set(options) - {"values", "optional"}
        if unknown or "values" not in options:
            raise ConfigError(
                "matcher 'any_of' takes {'values': [...], 'optional': bool}, "
                f"got keys {sorted(options)}",
                field="args",
            )
        return AnyOf(options["values"], optional=bool(options.get("optional", False)))
    raise ConfigError(f"matcher 'any_of' options must be a list or mapping, got {options!r}")


_FACTORIES: dict[str, Callable[..., Matcher]] = {
    "exact": Exact,
    "normalized": Normalized,
    "normalised": Normalized,
    "numeric": Numeric,
    "similarity": Similarity,
    "levenshtein": lambda **kw: Similarity(method="levenshtein", **kw),
    "jaro_winkler": lambda **kw: Similarity(method="jaro_winkler", **kw),
    "ignore": Ignore,
    "unordered": Unordered,
    "numeric_text": NumericText,
}


def matcher_names() -> list[str]:
    """Every name :func:`resolve_matcher` accepts (built-in and registered)."""
    return sorted(set(_FACTORIES) | set(_registered) | {"any_of"})


def register_matcher(name: str, matcher: Matcher | Callable[[Any, Any], float | bool]) -> None:
    """Make a matcher available by name, e.g. to re-score results that used it.

    >>> register_matcher("same_prefix", lambda e, a: str(a).startswith(str(e)[:3]))
    >>> resolve_matcher("same_prefix")("4471", "4479")
    1.0
    """
    if not name or name in _FACTORIES or name == "any_of":
        raise ConfigError(f"cannot register a matcher named {name!r}", field="name")
    if not isinstance(matcher, Matcher):
        matcher = CallableMatcher(matcher, name=name)
    _registered[name] = matcher


def resolve_matcher(spec: Any, *, field: str = "args") -> Matcher:
    """One matcher from a name, a one-key mapping, JSON text, a Matcher or a callable.

    >>> resolve_matcher({"numeric": {"abs_tol": 0.5}})(3, 3.4)
    1.0
    >>> resolve_matcher("jaro_winkler").name
    'similarity'
    """
    if isinstance(spec, str):
        text = spec.strip()
        if text.startswith("{"):
            return resolve_matcher(_load_json(text, field), field=field)
        if text == "any_of":
            return _build_any_of(None)
        if text in _FACTORIES:
            return _FACTORIES[text]()
        if text in _registered:
            return _registered[text]
        raise ConfigError(
            f"unknown argument matcher {text!r}{did_you_mean(text, matcher_names())}; "
            f"expected one of {', '.join(matcher_names())}",
            field=field,
        )
    if isinstance(spec, Mapping):
        return _matcher_from_mapping(spec, field)
    if isinstance(spec, Matcher):
        return spec
    if callable(spec):
        return CallableMatcher(spec)
    raise ConfigError(
        f"argument matcher must be a name, mapping, Matcher or callable, got {spec!r}",
        field=field,
    )


def _matcher_from_mapping(spec: Mapping[str, Any], field: str) -> Matcher:
    if "name" in spec:
        name, options = spec["name"], {k: v for k, v in spec.items() if k != "name"}
    elif len(spec) == 1:
        name, options = next(iter(spec.items()))
    else:
        raise ConfigError(
            f"a matcher mapping names one matcher, like {{'numeric': {{'abs_tol': 0.01}}}}; "
            f"got keys {sorted(spec)}",
            field=field,
        )
    if name == "any_of":
        return _build_any_of((options or None) if "name" in spec else options)
    if name not in _FACTORIES:
        raise ConfigError(
            f"unknown argument matcher {name!r}{did_you_mean(str(name), matcher_names())}; "
            f"expected one of {', '.join(matcher_names())}",
            field=field,
        )
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise ConfigError(f"options of matcher {name!r} must be a mapping, got {options!r}")
    try:
        return _FACTORIES[name](**options)
    except TypeError as exc:
        raise ConfigError(f"bad options for matcher {name!r}: {exc}", field=field) from None


def _load_json(text: str, field: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ConfigError(
            f"argument matcher config is not valid JSON: {exc}", field=field
        ) from None


def _matcher_spec(matcher: Matcher) -> Any:
    spec = getattr(matcher, "spec", None)
    if callable(spec):
        return spec()
    to_dict = getattr(matcher, "to_dict", None)  # AnyOf with its own values
    if callable(to_dict):
        data = to_dict()
        return {"any_of": {"values": data.get("any_of", []), "optional": data.get("optional")}}
    return getattr(matcher, "name", type(matcher).__name__)


def spec_is_whole(matcher: Matcher) -> bool:
    """Does the matcher's spec describe it whole, so that the spec rebuilds an equal matcher?

    True for the built-in matchers (whatever their options); False for a
    callable, registered or subclassed matcher, an ``AnyOf`` with a
    normaliser (Python code) or holding matchers: those only Python runs.
    The compiled kernel builds its matchers from the spec alone.

    >>> spec_is_whole(resolve_matcher({"unordered": {"matcher": "normalized"}}))
    True
    >>> spec_is_whole(resolve_matcher(lambda e, a: e == a))
    False
    """
    if type(matcher) in (Unordered, NumericText):  # every option of theirs is in their spec
        return spec_is_whole(matcher._resolved)  # type: ignore[attr-defined]
    if getattr(matcher, "normalise", None) is not None:
        return False
    try:
        return bool(resolve_matcher(_matcher_spec(matcher)) == matcher)
    except Exception:  # a spec that does not resolve describes nothing
        return False
