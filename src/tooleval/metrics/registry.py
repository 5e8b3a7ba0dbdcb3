"""The metric registry: every metric by name, with its parameters, needs and sample form.

A stored :class:`~tooleval.model.Result` records its metric name and the
effective value of every parameter, so :func:`rescore` can reproduce it.
Former parameter names and values a metric declares (``MetricInfo.aliases``,
e.g. ``check_ordering=True`` for ``order="strict"``) are translated before
validation wherever parameters arrive (bind, score_sample, rescore of a result
stored before the rename); results record only the current names.
Each metric is declared once, beside its function, with
:func:`tooleval.model.metric.metric`; the registry makes its
:class:`MetricInfo` from that declaration. It is filled on first use,
explicitly: the metrics this package declares (:data:`tooleval.metrics.builtin.DECLARED`),
the metrics each benchmark record of the ``tooleval.benchmarks`` group
declares (``Benchmark.metrics``), then every entry point of the ``tooleval.metrics``
group. Packages above this layer, such as ``tooleval.judged``, and third-party
packages plug in through that group (``[project.entry-points."tooleval.metrics"]``
naming a callable that returns declared functions, or :class:`MetricInfo`
objects); the registry never imports a module by name. A provider that is
declared but fails to load raises, naming the entry point.

>>> info = get_metric("tool_call_accuracy")
>>> info.params["order"].default, info.needs_judge
('strict', False)
>>> from tooleval.model import Sample, ToolCall
>>> sample = Sample(tools_called=[ToolCall("search", {"q": "x"})], expected_tools=["search"])
>>> result = score_sample("tool_call_accuracy", sample, order="flexible")
>>> result.score, result.params["order"], rescore(result, sample).score
(1.0, 'flexible', 1.0)
>>> bind("tool_correctness", check_ordering=True).params["order"]
'strict'
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from tooleval.errors import ConfigError, JudgeError, did_you_mean
from tooleval.matching.json_values import json_safe
from tooleval.model import MetricInfo, Param, Result, Sample
from tooleval.model.metric import Declaration, check_option, declaration

__all__ = [
    "ENTRY_POINT_GROUP",
    "BoundMetric",
    "MetricInfo",
    "Param",
    "ascore_sample",
    "bind",
    "check_params",
    "get_metric",
    "list_metrics",
    "register_metric",
    "rescore",
    "score_sample",
]

# Entry points of this group are loaded on first registry use; each names a callable
# returning an iterable of declared functions or MetricInfo (tooleval.judged is one).
ENTRY_POINT_GROUP = "tooleval.metrics"
# Benchmark records (tooleval.benchmarks.Benchmark) declare their metrics in this group.
BENCHMARK_GROUP = "tooleval.benchmarks"


_CORE_PROVIDER = "tooleval.metrics.builtin"  # the module whose metrics register first

_metrics: dict[str, MetricInfo] = {}
_lock = threading.RLock()
_state = {"loaded": False, "loading": False, "core": False, "benchmarks": False}
_from_benchmarks: set[str] = set()  # names _load_benchmarks registered ahead of the other providers


def _as_info(entry: Any, provider: str = "") -> MetricInfo | None:
    """A MetricInfo, or the MetricInfo of a function declared with ``@metric``; else None."""
    if isinstance(entry, MetricInfo):
        return entry
    declared = getattr(entry, "__metric__", None)
    if isinstance(declared, Declaration):
        return declared.info(provider)
    return None


def register_metric(info: Any, *, replace_existing: bool = False) -> None:
    """Add a metric: a function declared with ``@metric(...)``, or a MetricInfo.

    Re-registering a name from the same module replaces it (re-imports).
    """
    entry = info
    info = _as_info(entry)
    if info is None:
        raise ConfigError(
            "register_metric needs a function declared with tooleval.model.metric(...) or a "
            f"MetricInfo, got {type(entry).__name__}"
        )
    if "threshold" in info.params and not isinstance(info.params["threshold"], Param):
        raise ConfigError(f"metric {info.name!r}: params must be Param objects")
    module = getattr(info.score_sample, "__module__", "") or ""
    info = replace(info, provider=info.provider or module)
    with _lock:
        existing = _metrics.get(info.name)
        if existing is not None and not replace_existing and existing.provider != info.provider:
            raise ConfigError(
                f"metric {info.name!r} is already registered by {existing.provider}",
                field="name",
            )
        _metrics[info.name] = info


def _entry_point_metrics() -> list[MetricInfo]:
    from tooleval.plugins import entry_points

    infos: list[MetricInfo] = []
    for point in sorted(entry_points(ENTRY_POINT_GROUP), key=lambda p: p.name):
        # A declared provider that cannot load must fail loudly, never vanish.
        try:
            provide = point.load()
            provided = list(provide())
        except Exception as exc:
            raise ConfigError(
                f"metric provider {point.name!r} ({point.value}) in entry point group "
                f"{ENTRY_POINT_GROUP!r} failed to load: {type(exc).__name__}: {exc}; "
                "reinstall or uninstall the package that declares it",
                field="metric",
            ) from exc
        for entry in provided:
            info = _as_info(entry)
            if info is None:
                raise ConfigError(
                    f"metric provider {point.name!r} ({point.value}) gave "
                    f"{type(entry).__name__}, expected a function declared with "
                    "tooleval.model.metric(...) or a MetricInfo",
                    field="metric",
                )
            infos.append(info)
    return infos


def _benchmark_metrics() -> list[MetricInfo]:
    """The metrics every benchmark record declares (entry-point group ``tooleval.benchmarks``)."""
    from tooleval.plugins import entry_points

    infos: list[MetricInfo] = []
    for point in sorted(entry_points(BENCHMARK_GROUP), key=lambda p: p.name):
        try:
            declared = getattr(point.load(), "metrics", ())
            declared = tuple(declared() if callable(declared) else declared)
        except Exception as exc:
            raise ConfigError(
                f"benchmark {point.name!r} ({point.value}) in entry point group "
                f"{BENCHMARK_GROUP!r} failed to load: {type(exc).__name__}: {exc}; "
                "reinstall or uninstall the package that declares it",
                field="metric",
            ) from exc
        for entry in declared:
            info = _as_info(entry)
            if info is None:
                raise ConfigError(
                    f"benchmark {point.name!r} ({point.value}) declares "
                    f"{type(entry).__name__}, expected a function declared with "
                    "tooleval.model.metric(...) or a MetricInfo",
                    field="metric",
                )
            infos.append(info)
    return infos


def _load_providers() -> None:
    with _lock:
        if _state["loaded"] or _state["loading"]:
            return
        _state["loading"] = True
        try:
            _load_core()
            known = set(_metrics) - _from_benchmarks
            infos = [] if _state["benchmarks"] else _benchmark_metrics()
            for info in infos + _entry_point_metrics():
                if info.name not in known:
                    register_metric(info)
            _from_benchmarks.update(i.name for i in infos if i.name not in known)
            _state["loaded"] = _state["benchmarks"] = True
        finally:
            _state["loading"] = False


def _load_benchmarks() -> None:
    """Register the benchmark records' metrics alone (no judged or other entry-point provider)."""
    _load_core()
    with _lock:
        if _state["loaded"] or _state["loading"] or _state["benchmarks"]:
            return
        _state["loading"] = True
        try:
            known = set(_metrics)
            for info in _benchmark_metrics():
                if info.name not in known:
                    register_metric(info)
                    _from_benchmarks.add(info.name)
            _state["benchmarks"] = True
        finally:
            _state["loading"] = False


def _load_core() -> None:
    """Register this package's declared metrics (once; before anything else takes a name)."""
    if _state["core"]:
        return
    from tooleval.metrics.builtin import DECLARED

    with _lock:
        if not _state["core"]:
            for function in DECLARED:
                register_metric(declaration(function).info(_CORE_PROVIDER))
            _state["core"] = True


def list_metrics() -> list[MetricInfo]:
    """Every registered metric, sorted by name."""
    _load_providers()
    with _lock:
        return [_metrics[name] for name in sorted(_metrics)]


def get_metric(name: str) -> MetricInfo:
    """The metric called ``name``; ConfigError listing the known names otherwise.

    A core metric (:mod:`tooleval.metrics.builtin`) is returned as soon as
    that module has registered it: the profiles and other packages may not
    take its name (refused, or skipped for an entry point), so loading them
    could not change the answer (a ``replace_existing`` registration makes it
    no longer a core metric). A benchmark's metric (``bfcl_ast``) is returned
    once the benchmark records have registered theirs, without importing the
    judged and other entry-point providers (an entry point that takes a
    benchmark metric's name is refused when they load, as by ``tooleval
    metrics``). Any other name loads every provider first.
    """
    _load_core()
    with _lock:
        info = _metrics.get(name)
    if info is not None and info.provider == _CORE_PROVIDER:
        return info
    _load_benchmarks()
    with _lock:
        info = _metrics.get(name)
    if info is not None and name in _from_benchmarks:
        return info
    _load_providers()
    with _lock:
        info = _metrics.get(name)
        if info is None:
            known = ", ".join(sorted(_metrics)) or "none"
            raise ConfigError(
                f"unknown metric {name!r}{did_you_mean(name, _metrics)}; known metrics: {known}",
                field="metric",
            )
        return info


def _effective_params(info: MetricInfo, params: Mapping[str, Any]) -> dict[str, Any]:
    """Defaults filled in, former names and values (``info.aliases``) translated, all checked."""
    params = info.aliases.translate(info.name, params)
    unknown = sorted(set(params) - set(info.params))
    if unknown:
        valid = ", ".join(sorted(info.params)) or "none"
        if info.aliases.names:
            valid += f" (aliases: {', '.join(sorted(info.aliases.names))})"
        hint = did_you_mean(unknown[0], [*info.params, *info.aliases.names])
        raise ConfigError(
            f"metric {info.name!r} has no parameter {unknown[0]!r} (unknown parameter){hint}; "
            f"valid parameters: {valid}",
            field=unknown[0],
        )
    effective = {name: param.default for name, param in info.params.items()}
    for name, value in params.items():
        effective[name] = check_option(info.name, name, value, info.params[name])
    return effective


def check_params(name: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` of metric ``name`` under their current names, checked as :func:`bind` checks them.

    The one check of a metric's options, used by every entry point through
    here or :func:`bind` (``score --option``, a run plan's ``params`` and its
    ``--dry-run``, ``evaluate()``, ``rescore``, the pytest plugin, Ray's
    driver): former names and values are translated by the metric's declared
    aliases; an unknown name (with "did you mean") or a value its declaration
    does not allow (:func:`tooleval.model.metric.check_option`: choices,
    ``threshold`` in [0, 1], a matcher spec, an environment that imports) is a
    ConfigError whose ``field`` names the parameter, before any row. Only what
    was given comes back (no defaults filled in).

    >>> check_params("tool_correctness", {"check_ordering": True})
    {'order': 'strict'}
    """
    info = get_metric(name)
    effective = _effective_params(info, params)
    return {key: effective[key] for key in info.aliases.translate(name, params)}


def _finish(info: MetricInfo, result: Result, base: Mapping[str, Any]) -> Result:
    """``result`` with every parameter recorded (``base``: the JSON-safe effective values)."""
    if not isinstance(result, Result):
        raise ConfigError(f"metric {info.name!r} returned {type(result).__name__}, not a Result")
    if type(result) is Result and list(result.params) == list(base):
        # The metric recorded every parameter, in the same order: the merge
        # below would give an equal dict, so the result stands as it is.
        return result
    params = dict(base)
    params.update(result.params)  # the metric's own record (e.g. resolved matchers) wins
    # Built directly: dataclasses.replace costs several times more per row.
    return Result(
        result.metric,
        result.score,
        result.passed,
        result.reason,
        params,
        result.threshold,
        result.diagnosis,
    )


def _check(info: MetricInfo, sample: Sample, judge: Any) -> None:
    if not isinstance(sample, Sample):
        raise ConfigError(
            f"metric {info.name!r} scores a Sample, got {type(sample).__name__}", field="sample"
        )
    if info.needs_judge and judge is None:
        raise JudgeError(f"metric {info.name!r} needs an LLM judge; pass judge=...")


@dataclass(frozen=True, slots=True, eq=False)
class BoundMetric:
    """A metric with its parameters checked once, to score many samples.

    Made by :func:`bind`; ``score(sample)`` gives exactly what
    ``score_sample(name, sample, **params)`` gives, without looking the metric
    up and validating the parameters again for every row.

    >>> from tooleval.model import Sample
    >>> accuracy = bind("tool_call_accuracy", order="flexible")
    >>> accuracy.score(Sample(tools_called=["b", "a"], expected_tools=["a", "b"])).score
    1.0
    """

    info: MetricInfo
    params: Mapping[str, Any]  # effective values, defaults filled in
    judge: Any = None
    recorded: Mapping[str, Any] = field(default_factory=dict)  # JSON-safe params
    arguments: Mapping[str, Any] | None = None  # what score_sample gets (params if None)
    # The compiled kernel's scorer for this metric (engine.in_process_scorer):
    # None until the first score, False when Python scores every sample.
    _in_process: Any = field(default=None, init=False, repr=False, compare=False)

    @property
    def name(self) -> str:
        return self.info.name

    def score(self, sample: Sample) -> Result:
        """Score one sample (same result as :func:`score_sample`).

        The compiled kernel scores it when it can take this metric, these
        options and this sample (see :func:`tooleval.metrics.engine.in_process_scorer`;
        ``TOOLEVAL_NO_KERNEL`` is read at the first score); else the Python reference.
        """
        if type(sample) is Sample:
            scorer = self._in_process
            if scorer is None:
                scorer = self._kernel_scorer()
            if scorer:
                result: Result | None = scorer(sample)
                if result is not None:
                    return result
        return self._reference(sample)

    def _reference(self, sample: Sample) -> Result:
        """The Python reference's result, which the kernel's equals."""
        info = self.info
        if type(sample) is not Sample:
            _check(info, sample, self.judge)
        params = self.params if self.arguments is None else self.arguments
        if info.needs_judge:
            result = info.score_sample(sample, judge=self.judge, **params)
        else:
            result = info.score_sample(sample, **params)
        return _finish(info, result, self.recorded)

    def _kernel_scorer(self) -> Any:
        """Ask the engine once whether the compiled kernel can score this metric in process."""
        object.__setattr__(self, "_in_process", False)  # its probe row is scored in Python
        from tooleval.metrics.engine import in_process_scorer  # the engine imports this module

        scorer = in_process_scorer(self) or False
        object.__setattr__(self, "_in_process", scorer)
        return scorer

    def __reduce__(self) -> tuple[Any, ...]:
        # the kernel's scorer is not pickled; the copy asks the engine again
        return BoundMetric, (self.info, self.params, self.judge, self.recorded, self.arguments)

    async def ascore(self, sample: Sample) -> Result:
        """Async twin of :meth:`score` (judged metrics run without blocking the loop)."""
        info = self.info
        if info.ascore_sample is None and not info.needs_judge:
            return self.score(sample)
        _check(info, sample, self.judge)
        extra = {"judge": self.judge} if info.needs_judge else {}
        params = self.params if self.arguments is None else self.arguments
        if info.ascore_sample is not None:
            result = await info.ascore_sample(sample, **extra, **params)
        else:
            import asyncio  # imported here: asyncio pulls in ssl, too slow for `import tooleval`

            result = await asyncio.to_thread(info.score_sample, sample, **extra, **params)
        return _finish(info, result, self.recorded)


def bind(name: str, *, judge: Any = None, **params: Any) -> BoundMetric:
    """Look up metric ``name`` and validate ``params`` once; score rows with ``.score``.

    Raises like :func:`score_sample`: ConfigError for an unknown metric or
    parameter, JudgeError when a judged metric gets no judge.
    """
    info = get_metric(name)
    effective = _effective_params(info, params)
    if info.needs_judge and judge is None:
        raise JudgeError(f"metric {info.name!r} needs an LLM judge; pass judge=...")
    arguments = info.prepare(dict(effective)) if info.prepare is not None else None
    return BoundMetric(info, effective, judge, _recorded(effective), arguments)


def score_sample(name: str, sample: Sample, *, judge: Any = None, **params: Any) -> Result:
    """Score one sample with the metric ``name``; unknown or bad parameters raise ConfigError.

    ``Result.params`` holds every parameter with its effective value. To score
    many samples with the same metric and parameters, :func:`bind` once.
    """
    info = get_metric(name)
    effective = _effective_params(info, params)
    _check(info, sample, judge)
    arguments = info.prepare(dict(effective)) if info.prepare is not None else None
    bound = BoundMetric(info, effective, judge, _recorded(effective), arguments)
    return bound._reference(sample)  # one sample: building a kernel for it would cost more


async def ascore_sample(name: str, sample: Sample, *, judge: Any = None, **params: Any) -> Result:
    """Async twin of :func:`score_sample` (judged metrics run without blocking the loop)."""
    info = get_metric(name)
    effective = _effective_params(info, params)
    _check(info, sample, judge)
    arguments = info.prepare(dict(effective)) if info.prepare is not None else None
    bound = BoundMetric(info, effective, judge, _recorded(effective), arguments)
    return await bound.ascore(sample)


def _recorded(effective: Mapping[str, Any]) -> dict[str, Any]:
    return {key: json_safe(value) for key, value in effective.items()}


def rescore(result: Result, sample: Sample, *, judge: Any = None) -> Result:
    """Score ``sample`` again with the metric and parameters recorded in ``result``.

    Recorded parameters the metric no longer declares are left out (they
    describe, e.g., which judge model ran; the ``judge`` argument decides now).
    Former names and values (a result stored before a rename) are translated,
    so the new result records the current names.
    """
    info = get_metric(result.metric)
    known = set(info.params) | set(info.aliases.names)
    params = {k: v for k, v in result.params.items() if k in known}
    return score_sample(result.metric, sample, judge=judge, **params)
