"""What a metric is: declared once, beside its function, and listed by the registry from that.

:func:`metric` is the one declaration form, for the deterministic metrics, the
judged ones, a benchmark's grading metrics and third-party packages alike. It
reads the function's keyword-only parameters: each one is an option whose
default is the signature's default and whose choices are its
``typing.Literal[...]`` annotation (``bool`` means ``False``/``True``); the
decorator adds the name, a description, one help line per option, the sample
fields it reads, former names (:class:`Aliases`) and the sample form. The
registry (:mod:`tooleval.metrics.registry`) turns a declared function into a
:class:`MetricInfo`; ``tooleval metrics`` and docs/metrics.md's option tables
are derived from those.

>>> from typing import Literal
>>> @metric("demo_metric", "1.0 when the sample has output", requires=("output",),
...         help={"case": "fold: ignore case; exact: as written", "threshold": "pass mark"})
... def demo_metric(sample, *, case: Literal["fold", "exact"] = "fold", threshold=None):
...     return case
>>> info = declaration(demo_metric).info()
>>> info.params["case"]
Param(default='fold', help='fold: ignore case; exact: as written', choices=('fold', 'exact'))
>>> demo_metric(None, case="EXACT")  # enum values: any case, '-' for '_'
'exact'

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
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypeVar, get_args, get_origin

from tooleval.errors import ConfigError, did_you_mean
from tooleval.model.results import Result

__all__ = [
    "EMPTY_CHOICES",
    "ORDERS",
    "Alias",
    "Aliases",
    "Declaration",
    "Empty",
    "MetricInfo",
    "Order",
    "MAX_CHARS_HELP",
    "Param",
    "THRESHOLD_HELP",
    "accepts_aliases",
    "check_count",
    "check_option",
    "check_threshold",
    "declaration",
    "metric",
    "with_async",
]

#: The shared ``order`` option: ``strict`` keeps the expected order, ``flexible`` ignores it.
Order = Literal["strict", "flexible"]
#: The shared ``empty`` option: what a row with nothing to compare (nothing expected and
#: nothing called) scores: 1.0, 0.0, or unscored.
Empty = Literal["perfect", "zero", "unscored"]
#: The help line of a ``threshold`` whose None means "pass only a perfect score".
THRESHOLD_HELP = "pass when score >= threshold (null: score == 1)"
#: The help line of the judged metrics' ``max_chars``.
MAX_CHARS_HELP = "cut each tool result or argument shown to the judge at this many characters"
ORDERS: tuple[str, ...] = get_args(Order)
EMPTY_CHOICES: tuple[str, ...] = get_args(Empty)

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True, slots=True)
class Param:
    """One metric parameter: its default, a one-line help, and allowed values if enumerated.

    ``check`` validates a value that is not enumerated (``choices`` None): it
    returns the value to use or raises ConfigError saying what is allowed.
    Without one, a parameter called ``threshold`` takes a number in [0, 1] or
    null, and an ``int`` annotation a whole number >= 1 (see :func:`check_option`).
    """

    default: Any
    help: str
    choices: tuple[Any, ...] | None = None
    check: Callable[[Any], Any] | None = field(default=None, repr=False, compare=False)


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


def check_threshold(value: Any) -> float | None:
    """A ``threshold``: a finite number in [0, 1], or None (ConfigError otherwise).

    >>> check_threshold(1), check_threshold(None)
    (1.0, None)
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ConfigError(
            f"threshold must be a number in [0, 1] or null, got {value!r}", field="threshold"
        )
    return float(value)


def check_count(value: Any) -> int:
    """A whole number >= 1 (an option annotated ``int``, such as ``max_chars``)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"must be a whole number >= 1, got {value!r}")
    return value


def _folded(value: str) -> str:
    return value.casefold().replace("-", "_")


def _validator(name: str, param: Param) -> Callable[[Any], Any] | None:
    """How a value of option ``name`` is checked when it is not enumerated."""
    if param.check is not None:
        return param.check
    if name == "threshold":
        return check_threshold
    return None


def check_option(metric: str, name: str, value: Any, param: Param) -> Any:
    """``value`` of option ``name`` as the metric uses it; ConfigError naming what is allowed.

    This is the one check of an option value, wherever it arrives (the
    registry's ``bind``/``check_params``, a direct call of a declared metric).
    Enumerated text values match in any case and with ``-`` for ``_``
    (``Strict``, ``STRICT`` → ``strict``), with a "did you mean"; a ``bool``
    option takes only ``True``/``False`` (never ``1``). Other options go
    through their declared ``check`` (a ``threshold`` is a number in [0, 1]).

    >>> check_option("m", "order", "Strict", Param("strict", "", choices=ORDERS))
    'strict'
    >>> check_option("m", "threshold", 1.5, Param(None, ""))
    Traceback (most recent call last):
    tooleval.errors.ConfigError: field threshold: metric 'm': threshold must be a number in [0, 1] or null, got 1.5
    """
    choices = param.choices
    if choices is None:
        check = _validator(name, param)
        if check is None:
            return value
        try:
            return check(value)
        except ConfigError as exc:
            message = exc.message
            if message.startswith("must"):
                message = f"{name} {message}"
            elif not message.startswith(name):
                message = f"{name}: {message}"
            raise ConfigError(f"metric {metric!r}: {message}", field=name) from None
    for choice in choices:
        if _same(choice, value):
            return choice
    if isinstance(value, str):
        folded = _folded(value)
        for choice in choices:
            if isinstance(choice, str) and _folded(choice) == folded:
                return choice
    allowed = ", ".join(repr(c) for c in choices)
    texts = [c for c in choices if isinstance(c, str)]
    hint = did_you_mean(value, texts) if isinstance(value, str) and texts else ""
    raise ConfigError(
        f"metric {metric!r}: {name} must be one of {allowed}, got {value!r}{hint}", field=name
    )


def _choices(annotation: Any, namespace: Mapping[str, Any]) -> tuple[Any, ...] | None:
    """The values a ``Literal[...]`` (or ``bool``) annotation allows; None for any other type."""
    if isinstance(annotation, str):  # postponed annotations: evaluated in the function's module
        try:
            annotation = eval(annotation, dict(namespace))  # noqa: S307  (our own source text)
        except Exception:
            return None
    if annotation is bool:
        return (False, True)
    if get_origin(annotation) is Literal:
        return get_args(annotation)
    return None


@dataclass(frozen=True, slots=True)
class Declaration:
    """One metric as declared by :func:`metric`: what the registry makes its MetricInfo from.

    ``function`` is the undecorated function (what the registry calls, with
    options it has checked); ``options`` the keyword-only parameters, read
    from its signature; ``sample`` turns ``function`` into the sample form
    ``score_sample(sample, **options)`` (None: ``function`` takes a Sample).
    """

    name: str
    description: str
    options: Mapping[str, Param]
    requires: tuple[str, ...]
    needs_judge: bool
    function: Callable[..., Any]
    sample: Callable[[Callable[..., Any]], Callable[..., Result]] | None = None
    ascore: Callable[..., Awaitable[Result]] | None = None
    aliases: Aliases = field(default_factory=Aliases)
    prepare: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    public: Callable[..., Any] | None = None  # the decorated function, importable by name
    # A direct call's inputs made canonical: (metric, args, kwargs) -> (args, kwargs).
    inputs: Callable[..., tuple[tuple[Any, ...], dict[str, Any]]] | None = None

    def info(self, provider: str = "") -> MetricInfo:
        """The registry's entry for this metric (``provider``: who lists it, else its module)."""
        form = SampleForm(self.public or self.function, self.sample)
        return MetricInfo(
            name=self.name,
            description=self.description,
            params=dict(self.options),
            requires=self.requires,
            needs_judge=self.needs_judge,
            score_sample=form,
            ascore_sample=self.ascore,
            provider=provider or self.function.__module__,
            prepare=self.prepare,
            aliases=self.aliases,
        )

    def check(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """``given`` options with former names translated and enum values made canonical."""
        out = self.aliases.translate(self.name, given) if self.aliases else dict(given)
        for key, value in out.items():
            param = self.options.get(key)
            if param is not None:
                out[key] = check_option(self.name, key, value, param)
        return out


class SampleForm:
    """``score_sample(sample, **options)`` of a declared metric; pickled by its function's name.

    Calls the undecorated function (the registry has checked the options),
    through the declaration's ``sample`` adapter when it has one.
    """

    __slots__ = ("_score", "adapter", "public")

    def __init__(self, public: Callable[..., Any], adapter: Callable[..., Any] | None) -> None:
        self.public = public
        self.adapter = adapter
        raw = declaration(public).function if hasattr(public, "__metric__") else public
        self._score = raw if adapter is None else adapter(raw)

    def __call__(self, sample: Any, **options: Any) -> Result:
        result: Result = self._score(sample, **options)
        return result

    def __reduce__(self) -> tuple[Any, ...]:
        return SampleForm, (self.public, self.adapter)


def _options(
    function: Callable[..., Any],
    help: Mapping[str, str],
    name: str,
    checks: Mapping[str, Callable[[Any], Any]],
) -> dict[str, Param]:
    code = function.__code__
    first = code.co_argcount  # positional ones, positional-only included
    keyword = code.co_varnames[first : first + code.co_kwonlyargcount]
    defaults = function.__kwdefaults__ or {}
    annotations = getattr(function, "__annotations__", {})
    options: dict[str, Param] = {}
    for key in keyword:
        if key == "judge":
            continue
        if key not in defaults:
            raise ConfigError(f"metric {name!r}: option {key} needs a default", field=key)
        annotation = annotations.get(key)
        choices = _choices(annotation, function.__globals__)
        check = checks.get(key)
        if check is None and choices is None and annotation in (int, "int"):
            check = check_count
        options[key] = Param(defaults[key], help.get(key, ""), choices=choices, check=check)
    stray_checks = sorted(set(checks) - set(options))
    if stray_checks:
        raise ConfigError(
            f"metric {name!r}: checks name no option: {', '.join(stray_checks)}", field="checks"
        )
    undocumented = sorted(set(options) - set(help))
    stray = sorted(set(help) - set(options))
    if undocumented or stray:
        raise ConfigError(
            f"metric {name!r}: help must describe exactly its options "
            f"(missing: {undocumented or 'none'}, not options: {stray or 'none'})",
            field="help",
        )
    return options


def metric(
    name: str,
    description: str,
    *,
    requires: tuple[str, ...],
    help: Mapping[str, str],
    sample: Callable[[Callable[..., Any]], Callable[..., Result]] | None = None,
    aliases: Aliases | None = None,
    prepare: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    checks: Mapping[str, Callable[[Any], Any]] | None = None,
    inputs: Callable[..., tuple[tuple[Any, ...], dict[str, Any]]] | None = None,
) -> Callable[[F], F]:
    """Declare ``name`` on the function below: its options come from its signature.

    The decorated function checks every option it is given (see
    :func:`check_option`) and translates ``aliases`` when called directly;
    :func:`declaration` gives the :class:`Declaration`. ``help`` has one line
    per keyword-only option (no more, no fewer); ``checks`` maps an option
    that is not enumerated to its validator (``Param.check``); ``sample``
    adapts the function to a Sample (None when it takes one). What a direct
    call gives is made what the registry gives (so the body normalises
    nothing): ``inputs(name, args, kwargs)`` makes the inputs canonical and
    ``prepare`` turns the options, defaults filled in, into what the body
    takes (as for a bound metric).
    """

    def wrap(function: F) -> F:
        declared = Declaration(
            name=name,
            description=description,
            options=_options(function, help, name, checks or {}),
            requires=tuple(requires),
            needs_judge="judge" in (function.__kwdefaults__ or {}),
            function=function,
            sample=sample,
            aliases=aliases or Aliases(),
            prepare=prepare,
            inputs=inputs,
        )
        return _checked(function, declared)

    return wrap


def _checked(function: F, declared: Declaration) -> F:
    watched = frozenset(
        [k for k, p in declared.options.items() if p.choices is not None or _validator(k, p)]
        + list(declared.aliases.names)
        + list(declared.aliases.values)
    )
    check = declared.check
    name, inputs, prepare = declared.name, declared.inputs, declared.prepare
    defaults = {key: param.default for key, param in declared.options.items()}

    def canonical(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if not watched.isdisjoint(kwargs):
            kwargs = check(kwargs)
        if inputs is not None:
            args, kwargs = inputs(name, args, kwargs)
        if prepare is not None:
            kwargs = prepare({**defaults, **kwargs})
        return args, kwargs

    if _is_coroutine(function):

        @functools.wraps(function)
        async def acall(*args: Any, **kwargs: Any) -> Any:
            args, kwargs = canonical(args, kwargs)
            return await function(*args, **kwargs)

        acall.__metric__ = replace(declared, public=acall)  # type: ignore[attr-defined]
        return acall  # type: ignore[return-value]

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        args, kwargs = canonical(args, kwargs)
        return function(*args, **kwargs)

    call.__metric__ = replace(declared, public=call)  # type: ignore[attr-defined]
    return call  # type: ignore[return-value]


def declaration(function: Any) -> Declaration:
    """The :class:`Declaration` of a function decorated with :func:`metric`."""
    declared = getattr(function, "__metric__", None)
    if not isinstance(declared, Declaration):
        raise ConfigError(
            f"{getattr(function, '__qualname__', function)!r} is not declared with "
            "tooleval.model.metric(...)",
            field="metric",
        )
    return declared


def with_async(sync: Any) -> Callable[[F], F]:
    """Give the metric declared on ``sync`` this async twin (the registry's ``ascore_sample``)."""

    def wrap(function: F) -> F:
        declared = declaration(sync)
        twin = _checked(function, declared)
        sync.__metric__ = replace(declared, ascore=twin)
        return twin

    return wrap
