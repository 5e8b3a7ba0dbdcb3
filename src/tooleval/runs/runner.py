"""Run a plan: call the agent for every row, score what it did, store it row by row.

Rows run concurrently (a pool of ``concurrency`` asyncio workers). A row
(with every Result) is committed as a whole, alone or with the rows that
finished while the previous commit ran, and counts as done only once
committed, so a run killed at any point resumes with ``resume=RUN_ID``: stored rows are skipped, the others
run, none is lost or scored twice. A connector failure is that row's error
(every metric unscored with the cause), never a score of 0.

Everything that can be checked before calling the agent is: metric names
and parameters, the judge for judged metrics, that the dataset binds every
field the metrics need (``expected_tools`` above all), and the preflight of
:mod:`tooleval.runs.preflight` (prompts, ``${VAR}``, templates, a source of
tool calls, unique ids). :func:`check_plan` runs only those checks.

One process works a run at a time: the runner holds the run's lease in the
store (renewed every few seconds) and a second process asked to work the
same run (``resume=``) is refused while the holder lives; a dead holder's
run is taken over.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tooleval.analysis.clusters import classified
from tooleval.analysis.gate import GateResult, gate_of_run
from tooleval.errors import ConfigError, ToolEvalError
from tooleval.model import Result, Sample
from tooleval.runs.commits import GroupCommit
from tooleval.runs.finish import mark_plumbing, store_run_aggregates
from tooleval.runs.heartbeat import Heartbeat
from tooleval.runs.parts import (
    PlannedMetric,
    aclose,
    check_resumable,
    describe,
    describe_dataset,
    load_dataset_for,
    make_connector,
    make_judge,
    resolve_metrics,
)
from tooleval.runs.plan import DEFAULT_FLOOR_LINE, GateSpec, Plan, default_floor, has_floor
from tooleval.runs.preflight import PreflightReport, preflight, single_turn_note
from tooleval.runs.progress import Progress
from tooleval.store import RunWriter
from tooleval.store.records import RowRecord, RunInfo

if TYPE_CHECKING:
    from tooleval.store import Store

__all__ = ["RunOutcome", "arun_plan", "check_plan", "run_plan"]

_UNBOUND = "no expected_tools bound for this row"

_WORKERS_PER_CONNECTOR = 8


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """What a run did: its stored header, the gate verdict, rows run now vs before."""

    run_id: str
    run: RunInfo
    gate: GateResult
    rows_run: int
    rows_skipped: int
    #: The plan set no floor, so the default gate applied: every scored row must pass.
    default_floor: bool = False

    @property
    def summary(self) -> str:
        """One line: the rows run, the gate's verdict, and when the default gate decided it."""
        resumed = f", {self.rows_skipped} were already stored" if self.rows_skipped else ""
        verdict = "passed" if self.gate.passed else "failed"
        line = f"run {self.run_id}: {self.rows_run} rows run{resumed}; gate {verdict}"
        return f"{line}; {DEFAULT_FLOOR_LINE}" if self.default_floor else line


def run_plan(
    plan: Plan,
    *,
    store: Store,
    concurrency: int | None = None,
    resume: str | None = None,
    progress: Progress | None = None,
    connector: Any = None,
    gate: GateSpec | None = None,
    repeat: int | None = None,
    max_rps: float | None = None,
    cache: Any = None,
) -> RunOutcome:
    """Run ``plan`` to the end and return the stored outcome (see :func:`arun_plan`).

    Inside a running event loop (a notebook, an async app) use ``await
    arun_plan(...)``: this synchronous twin says so instead of failing deep
    inside asyncio.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise ConfigError(
            "run_plan was called inside a running event loop; use `await arun_plan(...)` "
            "there (same arguments)"
        )
    return asyncio.run(
        arun_plan(
            plan,
            store=store,
            concurrency=concurrency,
            resume=resume,
            progress=progress,
            connector=connector,
            gate=gate,
            repeat=repeat,
            max_rps=max_rps,
            cache=cache,
        )
    )


async def arun_plan(
    plan: Plan,
    *,
    store: Store,
    concurrency: int | None = None,
    resume: str | None = None,
    progress: Progress | None = None,
    connector: Any = None,
    gate: GateSpec | None = None,
    repeat: int | None = None,
    max_rps: float | None = None,
    cache: Any = None,
) -> RunOutcome:
    """Run ``plan`` against its connector (or ``connector=``) into ``store``.

    ``resume`` continues a stored run of the same plan; ``gate`` replaces the
    plan's gate. Cancelling (Ctrl-C) marks the run ``interrupted``.
    ``repeat`` runs every row that many times (see :mod:`tooleval.runs.repeats`;
    a resumed run keeps its own count); ``max_rps`` and ``cache`` (a
    :class:`~tooleval.runs.response_cache.ResponseCache`) wrap the connector
    (:mod:`tooleval.runs.calls`). ``repeat`` and ``max_rps`` left at None take
    the plan's ``repeat`` / ``max_rps``; the plan's ``cache`` is opened by the CLI.

    The phases: :func:`_prepare` (everything checked before the first call),
    :func:`_open_run` (a new run or the resumed one, its lease held),
    :func:`_work` (the rows), then the connectors, judge and lease are released.
    """
    concurrency = plan.concurrency if concurrency is None else concurrency
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise ConfigError(f"expected a whole number >= 1, got {concurrency!r}", field="concurrency")
    given = plan.gate if gate is None else gate
    # No floor in the plan: every scored row must pass, as `tooleval run` decides.
    spec = default_floor(given)
    ready = await _prepare(plan, connector, concurrency, max_rps, cache, repeat, spec)
    opened: _Opened | None = None
    try:
        opened = _open_run(store, plan, ready, resume)
        todo = await _work(store, ready, opened, progress, concurrency)
    finally:
        await _release(store, ready, opened)
    from tooleval.calibration import gate_calibrations

    info = store.get_run(opened.run_id)
    # The gate reads the run's read model: the figures and intervals every surface shows.
    return RunOutcome(
        run_id=opened.run_id,
        run=info,
        gate=gate_of_run(store, info, spec, calibrations=gate_calibrations(store, info)),
        rows_run=len(todo),
        rows_skipped=len(opened.attempts) - len(todo),
        default_floor=spec.require_all_pass and not has_floor(spec),
    )


@dataclass(slots=True)
class _Ready:
    """What :func:`_prepare` made ready: checked metrics, dataset, connectors, judge."""

    metrics: list[PlannedMetric]
    dataset: Any
    connectors: list[Any]
    calling: list[Any]
    own_connector: bool
    judge: Any
    config: dict[str, Any]
    asked_repeat: int | None
    repeat: int


@dataclass(slots=True)
class _Opened:
    """The run being worked: its id, writer, lease and heartbeat, the attempts and those done."""

    run_id: str
    rows: RunWriter
    lease: Any
    heartbeat: Heartbeat
    attempts: list[Any]
    done: set[int]


async def _prepare(
    plan: Plan,
    connector: Any,
    concurrency: int,
    max_rps: float | None,
    cache: Any,
    repeat: int | None,
    gate: GateSpec,
) -> _Ready:
    """Metrics, dataset, preflight and judge checked; the connectors made (nothing called).

    ``gate`` (the plan's, with the command line's flags) is stored with the run: the
    run list, ``runs show``, the viewer and the report check the gate the run was gated on.
    """
    from tooleval.runs.calls import wrap_connectors
    from tooleval.runs.repeats import check_repeat, repeat_config

    metrics = resolve_metrics(plan)
    dataset = load_dataset_for(plan, metrics)
    own_connector = connector is None
    first = make_connector(plan) if own_connector else connector
    try:
        preflight(plan, dataset, metrics, first).raise_if_failed()
        single_turn = single_turn_note(first)
        if single_turn:
            warnings.warn(single_turn, stacklevel=2)
        judge = make_judge(plan, metrics)
    except BaseException:
        if own_connector:
            await aclose(first)
        raise
    # httpcore's pool walks every connection on each request, so one pool shared
    # by 64 workers spends its time in bookkeeping (measured: ~4x fewer rows/s);
    # with a connector per few workers every pool stays small. (The HTTP
    # connector's aiohttp transport does not need it, but sends through httpx
    # when a proxy is set; aiohttp, one session or one per 8 tasks: same speed.)
    extra = -(-concurrency // _WORKERS_PER_CONNECTOR) - 1 if own_connector else 0
    connectors = [first] + [make_connector(plan) for _ in range(extra)]
    rps = plan.max_rps if max_rps is None else max_rps
    calling = wrap_connectors(connectors, max_rps=rps, cache=cache)
    config = {
        "concurrency": concurrency,
        "gate": gate.to_dict(),
        "judge": describe(judge) if judge is not None else None,
        "plan": str(plan.path) if plan.path else None,
    }
    asked = plan.repeat if repeat is None else check_repeat(repeat)
    if (asked or 1) > 1:
        config["repeat"] = repeat_config(dataset.rows, asked or 1)
    return _Ready(
        metrics, dataset, connectors, calling, own_connector, judge, config, asked, asked or 1
    )


def _open_run(store: Store, plan: Plan, ready: _Ready, resume: str | None) -> _Opened:
    """Start the run (or reopen ``resume``), take its lease and start the heartbeat."""
    from tooleval.runs.repeats import attempt_rows

    dataset_info = describe_dataset(plan, ready.dataset)
    repeat = ready.repeat
    if resume:
        run_id = store.resolve_run_id(resume)
        stored = store.get_run(run_id)
        check_resumable(plan, stored, dataset_info, ready.metrics)
        kept = (stored.config.get("repeat") or {}).get("n", 1)
        if ready.asked_repeat is not None and ready.asked_repeat != kept:
            raise ConfigError(
                f"run {run_id} was started with --repeat {kept}; resume it with the same "
                "count (or leave --repeat out)",
                field="--repeat",
            )
        repeat = kept
        # The lease first: rows stored by a live holder would otherwise be run twice.
        lease = store.acquire_lease(run_id)
        done = store.row_indexes(run_id)
        store.reopen_run(run_id)
        rows = RunWriter(store, run_id)
    else:
        rows = RunWriter.start(
            store,
            plan.name,
            dataset=dataset_info,
            connector=describe(ready.connectors[0]),
            metrics=[m.spec for m in ready.metrics],
            tags=plan.tags,
            config=ready.config,
        )
        run_id = rows.run_id
        lease = store.acquire_lease(run_id)
        done = set()
    heartbeat = Heartbeat(store, lease)
    if not getattr(store, "in_memory", False):
        # An in-memory store has one shared connection and no other process to
        # tell; a beat from another thread could collide with a row's commit.
        heartbeat.start()
    attempts = attempt_rows(ready.dataset.rows, repeat)
    return _Opened(run_id, rows, lease, heartbeat, attempts, done)


async def _work(
    store: Store, ready: _Ready, opened: _Opened, progress: Progress | None, concurrency: int
) -> list[Any]:
    """Run the rows not done yet and mark the run; return those rows."""
    attempts, heartbeat = opened.attempts, opened.heartbeat
    todo = [row for row in attempts if row.index not in opened.done]
    runner = _Runner(
        opened.run_id,
        store,
        ready.calling,
        ready.judge,
        ready.metrics,
        progress,
        ready.dataset,
        heartbeat,
    )
    if progress is not None:
        progress.start(total=len(attempts), done=len(attempts) - len(todo), run_id=opened.run_id)
    try:
        await runner.run(todo, concurrency)
    except (asyncio.CancelledError, KeyboardInterrupt):
        if not heartbeat.lost:
            opened.rows.finish("interrupted")
        raise
    except BaseException:
        if not heartbeat.lost:  # a run taken over belongs to its new holder
            opened.rows.finish("failed")
        raise
    finally:
        if progress is not None:
            progress.close()
    mark_plumbing(store, opened.run_id)
    opened.rows.finish("finished")
    store_run_aggregates(store, opened.run_id)
    return todo


async def _release(store: Store, ready: _Ready, opened: _Opened | None) -> None:
    """Stop the heartbeat, release the lease, close what the run opened (first error kept)."""
    try:
        if opened is not None:
            opened.heartbeat.stop()
            # A lease left behind is taken over anyway; keep the first error.
            with contextlib.suppress(ToolEvalError):
                store.release_lease(opened.lease)
    finally:
        if ready.own_connector:
            for each in ready.connectors:
                await aclose(each)
        if ready.judge is not None:
            await aclose(ready.judge)


def check_plan(plan: Plan, *, connector: Any = None) -> PreflightReport:
    """Every check a run makes before its first agent call, without calling it.

    What ``tooleval run PLAN --dry-run`` prints. Metric names and parameters,
    the judge and the dataset's bindings raise at once (as a run would);
    the preflight's findings come back in the report.
    """
    metrics = resolve_metrics(plan)
    dataset = load_dataset_for(plan, metrics)
    own = connector is None
    connector = make_connector(plan) if own else connector
    try:
        report = preflight(plan, dataset, metrics, connector)
    finally:
        if own:
            close = getattr(connector, "close", None)
            if close is not None:
                close()
    if not report.problems:
        make_judge(plan, metrics)  # a judged metric without a judge is a problem too
    return report


class _Runner:
    def __init__(
        self,
        run_id: str,
        store: Store,
        connectors: Sequence[Any],
        judge: Any,
        metrics: Sequence[PlannedMetric],
        progress: Progress | None,
        dataset: Any = None,
        heartbeat: Heartbeat | None = None,
    ) -> None:
        self.run_id = run_id
        self.store = store
        self.connectors = connectors
        self.judge = judge
        self.metrics = metrics
        self.progress = progress
        self.heartbeat = heartbeat
        bindings = getattr(dataset, "bindings", {}) or {}
        self.expected_column = bindings.get("expected_tools")

    async def run(self, rows: list[Any], concurrency: int) -> None:
        # One writer thread (no SQLite lock contention, never blocking the event
        # loop) storing, in one transaction, the rows that finished while the
        # last transaction ran (see tooleval.runs.commits).
        commits: GroupCommit[RowRecord] = GroupCommit(self._store_rows)
        pending = iter(rows)

        async def worker(connector: Any) -> None:
            # Each worker calls the agent for its next row while its last row commits.
            committing: tuple[asyncio.Future[None], RowRecord] | None = None
            for row in pending:
                if self.heartbeat is not None:
                    self.heartbeat.check()
                record = await self.run_row(row, connector)
                if committing is not None:
                    await self._committed(*committing)
                committing = (commits.submit(record), record)
            if committing is not None:
                await self._committed(*committing)

        tasks = [
            asyncio.create_task(worker(self.connectors[i % len(self.connectors)]))
            for i in range(min(concurrency, len(rows)))
        ]
        try:
            await asyncio.gather(*tasks)
        except BaseException:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        finally:
            # Let a commit already handed to the writer finish before the run is marked.
            commits.close()

    def _store_rows(self, records: Sequence[RowRecord]) -> None:
        """Store ``records`` in one transaction (the writer thread's job)."""
        writer = RunWriter(self.store, self.run_id, batch_size=max(1, len(records)))
        for record in records:
            writer.add(record)
        writer.flush()

    async def _committed(self, commit: asyncio.Future[None], record: RowRecord) -> None:
        await commit
        if self.progress is not None:
            self.progress.advance(error=record.error is not None)

    async def run_row(self, row: Any, connector: Any) -> RowRecord:
        sample: Sample = row.sample if row.sample is not None else Sample(id=str(row.row_id))
        error: str | None = None
        raw: Any = None
        latency: float | None = None
        absent: set[str] = set()  # agent-produced fields the connector did not report
        if getattr(row, "error", None):
            error = f"row could not be read: {row.error}"
        else:
            started = time.perf_counter()
            try:
                response = await connector.acall(sample)
            except ToolEvalError as exc:
                error = f"connector error: {exc}"
            except Exception as exc:  # an agent failure must not stop the other rows
                error = f"connector error: {type(exc).__name__}: {exc}"
            else:
                if response.messages is None:
                    if response.tools_called is None and sample.tools_called is None:
                        absent.add("tools_called")
                    if response.output is None and sample.output is None:
                        absent.add("output")
                sample = response.apply_to(sample)
                raw = response.raw
                latency = response.latency_ms
                extra: dict[str, Any] = {}
                if response.warnings:
                    extra["connector_warnings"] = list(response.warnings)
                retries = _retry_counts(response)
                if retries:
                    extra["connector_retries"] = retries
                if extra:
                    sample.metadata = {**sample.metadata, **extra}
            if latency is None:
                latency = (time.perf_counter() - started) * 1000.0
        broke = None if error is not None else _user_broke(sample)
        if error is not None or broke is not None:
            results = tuple(
                Result.unscored(
                    m.spec.name,
                    f"not scored: {error or broke}",
                    params=m.params,
                    threshold=m.spec.threshold,
                )
                for m in self.metrics
            )
        else:
            results = tuple(
                [
                    self._not_reported(m, absent)
                    if absent & set(m.info.requires or ())
                    else self._explain(await self.score(m, sample), row)
                    for m in self.metrics
                ]
            )
        record = RowRecord(
            run_id=self.run_id,
            index=row.index,
            row_id=str(row.row_id),
            sample=sample,
            results=results,
            error=error,
            latency_ms=latency,
            raw_response=raw,
        )
        return classified(record)

    def _not_reported(self, metric: PlannedMetric, absent: set[str]) -> Result:
        """Unscored, never 0, when the connector could not say what the metric reads."""
        if "tools_called" in absent and "tools_called" in (metric.info.requires or ()):
            why = (
                "the connector reported no tool calls for this row (the agent's reply has no "
                "tools_called/tool_calls, or the function returned only text)"
            )
        else:
            why = (
                "the connector reported no output for this row (no output path, or the reply "
                "had no text)"
            )
        return Result.unscored(
            metric.spec.name,
            f"not scored: {why}",
            params=metric.params,
            threshold=metric.spec.threshold,
        )

    def _explain(self, result: Result, row: Any) -> Result:
        """Say why a row has no reference, instead of asking to bind a bound column."""
        if result.score is not None or not result.reason.startswith(_UNBOUND):
            return result
        why = (getattr(row, "empty_cells", None) or {}).get("expected_tools")
        if why is None and self.expected_column is not None:
            why = f"column {self.expected_column} is empty in this row"
        if why is None:
            return result
        return dataclasses.replace(
            result, reason=f"no expected_tools for this row: {why}; the row is not scored"
        )

    async def score(self, metric: PlannedMetric, sample: Sample) -> Result:
        """One metric on one row, through the scoring pipeline's error policy.

        A failure to score (the ordering search's budget, a judge reply that
        cannot be used, a metric raising) is this row's unscored reason; the
        plan's threshold decides ``passed``.
        """
        from tooleval.metrics.registry import bind
        from tooleval.scoring import ascore_sample, reason_for, score_sample

        name, threshold = metric.spec.name, metric.spec.threshold
        if metric.bound is None:
            try:  # bound once; bad parameters are every row's reason (nothing kept until bound)
                bound = bind(name, judge=self.judge, **metric.params)
            except ToolEvalError as exc:
                return Result.unscored(
                    name, reason_for(exc), params=metric.params, threshold=threshold
                )
            metric.bound = bound
        if metric.info.needs_judge:
            return await ascore_sample(metric.bound, sample, threshold=threshold)
        # Off the event loop: a heavy metric (state_match diffing two databases) must
        # not stall the agents and the MCP/HTTP clients that share this loop.
        return await asyncio.to_thread(score_sample, metric.bound, sample, threshold=threshold)


def _user_broke(sample: Sample) -> str | None:
    """The simulator audit's verdict (docs/episodes.md): why the agent is not judged on this row."""
    if "simulator" not in sample.metadata:
        return None
    from tooleval.serving.users import user_broke

    return user_broke(sample.metadata)


def _retry_counts(response: Any) -> dict[str, int]:
    """Retries the connector needed, by cause (HTTP status vs unreadable body)."""
    counts = getattr(response, "retries", None) or {}
    return {k: int(v) for k, v in counts.items() if v}
