"""Rescore a stored run with other metrics or parameters, without calling the agent.

The agent's answers (tool calls, output, messages) are in the store; a new
run is made from them with the metrics given, so a metric change costs no
agent call and ``tooleval compare OLD NEW`` shows exactly what it did.
Judged metrics call their judge (and nothing else), with its cache,
``concurrency`` rows at a time; each row records the judge's tokens as in a run. Rows
the agent could not be called for stay errors (every metric unscored with
the same cause); a field the connector did not report stays "not reported",
never a 0.

>>> specs = parse_metric_specs(["tool_call_f1", "tool_correctness"],
...                            ["tool_call_f1.args=ignore"], ["tool_call_f1=0.8"])
>>> [(s.name, s.params, s.threshold) for s in specs]
[('tool_call_f1', {'args': 'ignore'}, 0.8), ('tool_correctness', {}, None)]
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Iterable, Sequence
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from tooleval.analysis.aggregates import store_aggregates
from tooleval.analysis.clusters import classified
from tooleval.errors import ConfigError
from tooleval.event_loop import run_off_the_loop
from tooleval.model import Result, Sample
from tooleval.store.records import MetricSpec, RowRecord

if TYPE_CHECKING:
    from tooleval.runs.progress import Progress
    from tooleval.store import Store

__all__ = ["arescore_row", "parse_metric_specs", "rescore_row", "rescore_run"]

_BATCH = 500


def parse_metric_specs(
    names: Sequence[str], options: Sequence[str] = (), thresholds: Sequence[str] = ()
) -> list[MetricSpec]:
    """Metric specs from ``--metric NAME``, ``--option [METRIC.]KEY=VALUE``, ``--threshold``.

    With one metric an option may omit ``METRIC.``; VALUE is JSON when it
    parses as JSON (``true``, ``0.5``, ``["a"]``), text otherwise.
    """
    import orjson

    if not names:
        raise ConfigError("give at least one --metric NAME", field="--metric")
    order = list(dict.fromkeys(n.strip() for n in names))
    if any(not n for n in order):
        raise ConfigError("a metric name cannot be empty", field="--metric")
    params: dict[str, dict[str, Any]] = {n: {} for n in order}
    limits: dict[str, float] = {}

    def target(text: str, option: str) -> tuple[str, str]:
        metric, dot, key = text.rpartition(".")
        if not dot:
            if len(order) != 1:
                raise ConfigError(
                    f"{option} {text!r}: with several metrics write METRIC.{text}", field=option
                )
            return order[0], text
        if metric not in params:
            raise ConfigError(
                f"{option} names metric {metric!r}, which no --metric gives ({', '.join(order)})",
                field=option,
            )
        return metric, key

    for pair in options:
        left, sep, value = pair.partition("=")
        if not sep or not left.strip():
            raise ConfigError(
                f"--option {pair!r} must look like [METRIC.]KEY=VALUE", field="--option"
            )
        metric, key = target(left.strip(), "--option")
        try:
            parsed = orjson.loads(value)
        except orjson.JSONDecodeError:
            parsed = value
        if key in params[metric]:
            raise ConfigError(
                f"--option {metric}.{key} given twice ({params[metric][key]!r}, then "
                f"{parsed!r}); give it once",
                field="--option",
            )
        params[metric][key] = parsed
    for pair in thresholds:
        left, sep, value = pair.rpartition("=")
        if not sep:
            left, value = "", pair
        named = left.strip() or None
        if named is not None and named not in params:
            raise ConfigError(
                f"--threshold names metric {named!r}, which no --metric gives ({', '.join(order)})",
                field="--threshold",
            )
        if named is None:
            if len(order) != 1:
                raise ConfigError(
                    f"--threshold {pair!r}: with several metrics write METRIC=X",
                    field="--threshold",
                )
            named = order[0]
        try:
            limit = float(value)
        except ValueError:
            limit = -1.0
        if not 0.0 <= limit <= 1.0:
            raise ConfigError(
                f"--threshold {pair!r}: expected a number between 0 and 1", field="--threshold"
            )
        if named in limits:
            raise ConfigError(
                f"--threshold for {named} given twice ({limits[named]:g}, then {limit:g}); "
                "give it once",
                field="--threshold",
            )
        limits[named] = limit
    return [MetricSpec(n, params[n], limits.get(n)) for n in order]


def _resolve(specs: Sequence[MetricSpec], judge: Any) -> list[Any]:
    from tooleval.runs.parts import resolve_metrics

    try:
        plan: Any = SimpleNamespace(metrics=tuple(specs))  # all resolve_metrics reads
        metrics = resolve_metrics(plan)
    except ConfigError as exc:  # name the command-line option, not a plan key
        where = str(exc.context.get("field", ""))
        option = "--option" if ".params." in where else "--metric"
        raise ConfigError(exc.message, field=option) from None
    judged = [m.spec.name for m in metrics if getattr(m.info, "needs_judge", False)]
    if judged and judge is None:
        raise ConfigError(
            f"{', '.join(judged)} need(s) an LLM judge: give --judge local (the bundled model, "
            "tooleval[local]) or --judge openai --judge-option model=... --judge-option "
            "base_url=..., or set $TOOLEVAL_JUDGE (Python: rescore_run(..., judge=...))",
            field="--judge",
        )
    for metric in metrics:  # bound before any row: a bad option is refused, never a row's reason
        try:
            _bind(metric, judge)
        except ConfigError as exc:
            raise ConfigError(exc.message, field="--option") from None
    return metrics


def _bind(metric: Any, judge: Any) -> Any:
    """``metric``'s BoundMetric, made once (ConfigError for an option its declaration refuses)."""
    from tooleval.metrics.registry import bind

    if metric.bound is None:
        extra = {"judge": judge} if getattr(metric.info, "needs_judge", False) else {}
        metric.bound = bind(metric.spec.name, **extra, **metric.params)
    return metric.bound


def _before_scoring(row: RowRecord, metric: Any, judge: Any) -> Result | None:
    """The unscored result a run would store for this row and metric, or None to score it.

    The runs' rules: a row the agent could not be called for is every metric's
    ``not scored: ERROR``; a field the connector did not report is "not
    reported". The metrics are bound before any row (:func:`_resolve`).
    """
    _bind(metric, judge)
    name, threshold, params = metric.spec.name, metric.spec.threshold, metric.params
    if row.error is not None:
        return Result.unscored(name, f"not scored: {row.error}", params=params, threshold=threshold)
    needs = set(getattr(metric.info, "requires", ()) or ())
    missing = _not_reported(row.sample) & needs
    if missing:
        what = "tool calls" if "tools_called" in missing else "output"
        return Result.unscored(
            name,
            f"not scored: the connector reported no {what} for this row",
            params=params,
            threshold=threshold,
        )
    return None


def rescore_row(
    row: RowRecord, metrics: Sequence[Any], run_id: str, *, judge: Any = None
) -> RowRecord:
    """The row as the new run stores it: same answer, new results (judged ones block)."""
    from tooleval.scoring import score_sample

    results: list[Result] = []
    for metric in metrics:
        result = _before_scoring(row, metric, judge)
        if result is None:
            result = score_sample(metric.bound, row.sample, threshold=metric.spec.threshold)
        results.append(result)
    return classified(dataclasses.replace(row, run_id=run_id, results=tuple(results)))


async def arescore_row(
    row: RowRecord, metrics: Sequence[Any], run_id: str, *, judge: Any = None
) -> RowRecord:
    """Async twin of :func:`rescore_row`: judged metrics await their judge."""
    from tooleval.scoring import ascore_sample, score_sample

    results: list[Result] = []
    for metric in metrics:
        result = _before_scoring(row, metric, judge)
        if result is None and getattr(metric.info, "needs_judge", False):
            result = await ascore_sample(metric.bound, row.sample, threshold=metric.spec.threshold)
        elif result is None:
            result = score_sample(metric.bound, row.sample, threshold=metric.spec.threshold)
        results.append(result)
    return classified(dataclasses.replace(row, run_id=run_id, results=tuple(results)))


def _not_reported(sample: Sample) -> set[str]:
    """Agent-produced fields the stored row lacks (the run scored them "not reported")."""
    if sample.messages:
        return set()
    absent = set()
    if sample.tools_called is None:
        absent.add("tools_called")
    if sample.output is None:
        absent.add("output")
    return absent


def _kept_thresholds(specs: Sequence[MetricSpec], source: Sequence[MetricSpec]) -> list[MetricSpec]:
    """``specs`` with the source run's threshold of each metric the user gave none for.

    A rescore changes what the user asked (a metric, an option), nothing else:
    a threshold set in the source run stays unless ``--threshold`` (or a
    ``threshold`` option) gives a new one.

    >>> old = [MetricSpec("tool_call_f1", {}, 0.8)]
    >>> [s.threshold for s in _kept_thresholds([MetricSpec("tool_call_f1", {"args": "ignore"})], old)]
    [0.8]
    >>> [s.threshold for s in _kept_thresholds([MetricSpec("tool_call_f1", {}, 0.6)], old)]
    [0.6]
    """
    before = {spec.name: spec.threshold for spec in source if spec.threshold is not None}
    kept = []
    for spec in specs:
        threshold = spec.threshold
        if threshold is None and "threshold" not in spec.params:
            threshold = before.get(spec.name)
        kept.append(MetricSpec(spec.name, spec.params, threshold))
    return kept


def rescore_run(
    store: Store,
    run_id: str,
    specs: Sequence[MetricSpec],
    *,
    name: str | None = None,
    tags: Iterable[str] | None = None,
    judge: Any = None,
    concurrency: int = 4,
    progress: Progress | None = None,
) -> str:
    """Store a new run scoring ``run_id``'s stored answers with ``specs``; return its id.

    The new run is a live run while it is scored: it holds the run's lease (a
    heartbeat thread renews it, as ``tooleval run`` does), so ``runs list`` and
    the viewer show it running; judged rows are stored one by one as their
    judge answers, and ``progress`` (:func:`tooleval.runs.progress.make_progress`)
    counts them.

    Nothing is called but the judge: the connector description, dataset and
    rows are the source run's, the config records ``rescored_from``; a
    metric's threshold in the source run is kept unless ``specs`` set a new
    one. Judged metrics need ``judge`` (a judge object, e.g. from
    :func:`tooleval.llm.judge_from_config`) and are scored ``concurrency`` rows
    at a time, with its cache; the judge is closed when the rows are done. ::

        from tooleval.store import open_store

        with open_store("runs.db") as store:
            specs = parse_metric_specs(["tool_call_f1"], ["tool_call_f1.args=ignore"])
            new_id = rescore_run(store, "20261129-1841", specs)  # an id or its prefix
    """
    from tooleval.runs.finish import mark_plumbing
    from tooleval.runs.heartbeat import Heartbeat

    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise ConfigError(
            f"--concurrency must be 1 or more, got {concurrency!r}", field="--concurrency"
        )
    source = store.get_run(store.resolve_run_id(run_id))
    metrics = _resolve(_kept_thresholds(specs, source.metrics), judge)
    judged = any(getattr(m.info, "needs_judge", False) for m in metrics)
    holder = store.lease_holder(source.id) if source.status == "running" else None
    if holder is not None and holder.get("alive"):
        raise ConfigError(
            f"run {source.id} is still running; rescore it when it has finished", field="RUN_ID"
        )
    config = {k: v for k, v in source.config.items() if k != "rescored_from"}
    config["rescored_from"] = source.id
    if judged:
        config["judge"] = judge.describe() if hasattr(judge, "describe") else type(judge).__name__
        config["concurrency"] = concurrency
    new_id = store.create_run(
        name or f"{source.name} (rescored)",
        dataset=source.dataset,
        connector=source.connector,
        metrics=[m.spec for m in metrics],
        tags=list(source.tags if tags is None else tags),
        config=config,
    )
    lease = store.acquire_lease(new_id)
    heartbeat = Heartbeat(store, lease)
    heartbeat.start()
    live = _Live(heartbeat, progress)
    if progress is not None:
        progress.start(total=source.row_count, done=0, run_id=new_id)
    try:
        if judged:
            import asyncio  # here: asyncio pulls in ssl, too slow for every command

            run_off_the_loop(  # also from a notebook or an async caller
                lambda: asyncio.run(
                    _judge_rows(store, source.id, new_id, metrics, judge, concurrency, live)
                ),
                name="tooleval-rescore",
            )
        else:
            batch: list[RowRecord] = []
            for row in store.iter_rows(source.id):
                batch.append(rescore_row(row, metrics, new_id))
                if len(batch) >= _BATCH:
                    live.stored(store, new_id, batch)
                    batch = []
            live.stored(store, new_id, batch)
        mark_plumbing(store, new_id)
    except BaseException:
        live.close()
        if not heartbeat.lost:  # a run taken over belongs to its new holder
            store.finish_run(new_id, "failed")
            store.release_lease(lease)
        raise
    live.close()
    store.finish_run(new_id, "finished" if source.status == "finished" else source.status)
    store.release_lease(lease)
    problem = store_aggregates(store, new_id)
    if problem is not None:  # the results are stored; views count them on first use instead
        warnings.warn(f"run {new_id}: aggregates not stored ({problem})", stacklevel=2)
    return new_id


class _Live:
    """A rescore's lease heartbeat and progress: every stored row is counted, a lost lease stops."""

    def __init__(self, heartbeat: Any, progress: Progress | None) -> None:
        self.heartbeat = heartbeat
        self.progress = progress

    def stored(self, store: Store, run_id: str, rows: list[RowRecord]) -> None:
        self.heartbeat.check()  # another process took the run over: store nothing more
        store.add_rows(run_id, rows)
        if self.progress is not None:
            for row in rows:
                self.progress.advance(error=row.error is not None)

    def close(self) -> None:
        self.heartbeat.stop()
        if self.progress is not None:
            self.progress.close()


async def _judge_rows(
    store: Store,
    source_id: str,
    new_id: str,
    metrics: Sequence[Any],
    judge: Any,
    concurrency: int,
    live: _Live,
) -> None:
    """Rescore with judged metrics, ``concurrency`` rows at a time, each stored as it is judged."""
    import asyncio

    gate = asyncio.Semaphore(concurrency)

    async def one(row: RowRecord) -> None:
        async with gate:
            live.stored(store, new_id, [await arescore_row(row, metrics, new_id, judge=judge)])

    async def store_batch(rows: list[RowRecord]) -> None:
        await asyncio.gather(*(one(row) for row in rows))

    try:
        batch: list[RowRecord] = []
        for row in store.iter_rows(source_id):
            batch.append(row)
            if len(batch) >= _BATCH:
                await store_batch(batch)
                batch = []
        await store_batch(batch)
    finally:
        close = getattr(judge, "aclose", None)
        if close is not None:  # on the loop its clients were made on
            await close()
