"""What a metric is, as the registry lists it: its parameters, aliases, needs and sample form.

The types live in the model because every provider of metrics describes its
metrics with them (the deterministic ones in :mod:`tooleval.metrics`, the
judged ones, a third-party package), while only :mod:`tooleval.metrics.registry`
keeps the list.

A parameter that was renamed keeps its old name as a declared :class:`Alias`
(each old value says which current parameters it stands for); a value that
was renamed keeps its old spelling in :attr:`Aliases.values`. Translation is
one pure function, :meth:`Aliases.translate`, used by the registry and, through
:func:`accepts_aliases`, by the public metric functions.

>>> Param("strict", "call order rule", choices=("strict", "flexible")).default
'strict'
>>> seeds = Aliases(names={"check_ordering": Alias(
...     {True: {"order": "strict"}, False: {"order": "flexible"}}, "former name of order")})
>>> seeds.translate("tool_correctness", {"check_ordering": True, "args": "exact"})
{'args': 'exact', 'order': 'strict'}
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from tooleval.errors import ConfigError
from tooleval.model.results import Result

__all__ = ["EMPTY_CHOICES", "ORDERS", "Alias", "Aliases", "MetricInfo", "Param", "accepts_aliases"]

#: The shared ``order`` option: ``strict`` keeps the expected order, ``flexible`` ignores it.
ORDERS = ("strict", "flexible")
#: The shared ``empty`` option: what a row with nothing to compare (nothing expected and
#: nothing called) scores: 1.0, 0.0, or unscored.
EMPTY_CHOICES = ("perfect", "zero", "unscored")

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True, slots=True)
class Param:
    """One metric parameter: its default, a one-line help, and allowed values if enumerated."""

    default: Any
    help: str
    choices: tuple[Any, ...] | None = None


def _same(a: Any, b: Any) -> bool:
    """Equal, with a bool never standing for a number (``True`` is not ``1``)."""
    return isinstance(a, bool) == isinstance(b, bool) and a == b


def _show(params: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in params.items())


@dataclass(frozen=True, slots=True)
class Alias:
    """A former parameter name: each of its values and the current parameters it means.

    >>> Alias({"any": {"require": "any"}}, "former name of require").lookup("any")
    {'require': 'any'}
    """

    values: Mapping[Any, Mapping[str, Any]]
    help: str

    def lookup(self, value: Any) -> Mapping[str, Any] | None:
        """The current parameters ``value`` stands for (None when it is no known value)."""
        for old, new in self.values.items():
            if _same(old, value):
                return new
        return None


@dataclass(frozen=True, slots=True)
class Aliases:
    """A metric's former parameter names (``names``) and former values (``values``).

    ``values`` maps a current parameter to ``{former value: current value}``.
    """

    names: Mapping[str, Alias] = field(default_factory=dict)
    values: Mapping[str, Mapping[Any, Any]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.names) or bool(self.values)

    def _renamed(self, name: str, value: Any) -> Any:
        for old, new in self.values.get(name, {}).items():
            if _same(old, value):
                return new
        return value

    def translate(self, metric: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """``params`` with every former name and value replaced by the current ones.

        Names that are not aliases pass through unchanged (the caller checks
        them). A former and a current name that disagree raise ConfigError
        naming both; so does a former name given a value it never had.

        >>> Aliases(values={"empty": {"pass": "perfect"}}).translate("m", {"empty": "pass"})
        {'empty': 'perfect'}
        """
        if not self:
            return dict(params)
        out: dict[str, Any] = {}
        origin: dict[str, str] = {}  # current name -> the name the caller used
        for name, value in params.items():
            if name not in self.names:
                out[name] = self._renamed(name, value)
                origin[name] = name
        for name, value in params.items():
            alias = self.names.get(name)
            if alias is None:
                continue
            try:
                new = alias.lookup(value)
            except TypeError:
                new = None
            if new is None:
                allowed = ", ".join(repr(v) for v in alias.values)
                raise ConfigError(
                    f"metric {metric!r}: {name} (an alias: {alias.help}) must be one of "
                    f"{allowed}, got {value!r}",
                    field=name,
                )
            for key, meant in new.items():
                if key in out and not _same(out[key], meant):
                    given = params[origin[key]] if origin[key] != name else value
                    raise ConfigError(
                        f"metric {metric!r}: {name}={value!r} means {_show(new)}, but "
                        f"{origin[key]}={given!r} was given too; pass only {key}",
                        field=name,
                    )
                out[key] = meant
                origin[key] = name
        return out


def accepts_aliases(metric: str, aliases: Aliases) -> Callable[[F], F]:
    """Let a public metric function take its former keyword names and values too.

    >>> @accepts_aliases("demo", Aliases(names={"mode": Alias({"any": {"require": "any"}}, "")}))
    ... def demo(*, require="all"):
    ...     return require
    >>> demo(mode="any"), demo(require="all")
    ('any', 'all')
    """

    # Calls without a former name or a renamed parameter (every call the registry
    # makes: it has translated already) go straight through.
    watched = frozenset(aliases.names) | frozenset(aliases.values)

    def wrap(function: F) -> F:
        if not aliases:
            return function

        @functools.wraps(function)
        def call(*args: Any, **kwargs: Any) -> Any:
            if watched.isdisjoint(kwargs):
                return function(*args, **kwargs)
            return function(*args, **aliases.translate(metric, kwargs))

        if _is_coroutine(function):

            @functools.wraps(function)
            async def acall(*args: Any, **kwargs: Any) -> Any:
                if watched.isdisjoint(kwargs):
                    return await function(*args, **kwargs)
                return await function(*args, **aliases.translate(metric, kwargs))

            return acall  # type: ignore[return-value]
        return call  # type: ignore[return-value]

    return wrap


def _is_coroutine(function: Callable[..., Any]) -> bool:
    import inspect

    return inspect.iscoroutinefunction(function)


@dataclass(frozen=True, slots=True)
class MetricInfo:
    """What the registry knows about one metric.

    ``score_sample(sample, **params)`` (plus ``judge=`` when ``needs_judge``)
    scores one :class:`Sample`; ``ascore_sample`` is its async twin when the
    metric does I/O. ``requires`` names the Sample fields it reads
    (``tools_called`` stands for the actual calls, from ``tools_called`` or the
    assistant messages; ``output`` for the final answer). ``aliases`` are the
    former parameter names and values it still accepts (translated before
    validation; results record only current names).
    """

    name: str
    description: str
    params: Mapping[str, Param]
    requires: tuple[str, ...]
    needs_judge: bool
    score_sample: Callable[..., Result]
    ascore_sample: Callable[..., Awaitable[Result]] | None = None
    provider: str = field(default="", compare=False)
    # Optional: turn effective params into what score_sample takes, once per
    # bind (e.g. resolve an ``args`` spec to a comparator); same results.
    prepare: Callable[[dict[str, Any]], dict[str, Any]] | None = field(default=None, compare=False)
    aliases: Aliases = field(default_factory=Aliases, compare=False)
