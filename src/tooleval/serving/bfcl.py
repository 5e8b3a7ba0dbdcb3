"""BFCL multi-turn run live: an OpenAI-compatible model, turn by turn, on BFCL's simulated APIs.

The environment ``tooleval.serving.bfcl:multi_turn`` (declared as
``bfcl_multi_turn``) is one BFCL multi-turn entry's instances of the simulated
APIs (:class:`~tooleval.benchmarks.bfcl.live.BfclEnvironment`). A plan whose
dataset is a BFCL multi-turn question file and whose ``openai`` connector is
served this environment runs each entry as BFCL's own inference does
(:mod:`tooleval.benchmarks.bfcl.live`): every user turn of the entry in
order, several steps per turn, each step's calls executed and recorded by
tooleval on a fresh set of instances per row and attempt, at most
:data:`~tooleval.benchmarks.bfcl.live.STEP_LIMIT` steps with calls per turn::

    dataset: ../shared/data/bfcl/data/BFCL_v4_multi_turn_base.json
    connector: {type: openai, base_url: "${MODEL_URL}/v1", model: my-model}
    environment:
      name: "tooleval.serving.bfcl:multi_turn"
      config: {results_dir: bfcl-results/my-model}   # BFCL's result files are written here
    metrics: [bfcl_multi_turn]

Config keys: ``results_dir`` (a folder, relative to the plan's; each
category's ``BFCL_v4_<category>_result.json`` in it is rewritten as episodes
end, a line per entry, the lines of an entry run again replaced; attempt
``k > 1`` of a repeated run goes to ``attempt<k>/`` inside it) and ``entry``
(an id of the installed bfcl-eval's data: the entry a row without BFCL's
columns, or ``tooleval serve``, runs). Each row keeps BFCL's result in
``metadata.bfcl.multi_turn`` (with the entry and its ground truth from the
installed bfcl-eval), which ``bfcl_multi_turn`` grades by BFCL's rules.

Served over MCP or HTTP (``serve:`` on an ``http``/``python`` connector,
``tooleval serve``), every row and attempt gets fresh instances of its own
entry; the tools listed are every multi-turn class's functions, or the config entry's (MCP lists one
set per server), and a call of a class the entry does not involve answers
BFCL's ``name ... is not defined``.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tooleval.benchmarks.bfcl.live import (
    STEP_LIMIT,
    BfclEnvironment,
    LiveEntry,
    LiveResult,
    decode_step,
    ground_truth,
)
from tooleval.benchmarks.bfcl.multi_turn_data import package_data
from tooleval.benchmarks.bfcl.multi_turn_env import load_classes
from tooleval.connectors import config as connector_config
from tooleval.connectors.response import AgentResponse, as_sample
from tooleval.connectors.retry import RetryTally, UnreadableBody, asend
from tooleval.environments.named import environment_factory
from tooleval.errors import ConfigError, ConnectorError, ToolEvalError
from tooleval.io_atomic import atomic_write
from tooleval.model import (
    AssistantMessage,
    Message,
    Sample,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from tooleval.serving.sessions import EnvironmentSession, EnvironmentTools

__all__ = ["BfclChatConnector", "BfclTools", "multi_turn", "tools_for"]

_CONFIG_KEYS = ("entry", "results_dir")


def _config(config: Mapping[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(config) - set(_CONFIG_KEYS))
    if unknown:
        raise ConfigError(
            f"unknown key; the BFCL environment takes {', '.join(_CONFIG_KEYS)}",
            field=f"environment.config.{unknown[0]}",
        )
    for key in _CONFIG_KEYS:
        if key in config and not isinstance(config[key], str):
            raise ConfigError(
                f"expected a text, got {type(config[key]).__name__}",
                field=f"environment.config.{key}",
            )
    return dict(config)


def _package_entry(entry_id: str) -> LiveEntry:
    category = entry_id.rsplit("_", 1)[0]
    row = package_data(f"BFCL_v4_{category}.json", False).get(entry_id)
    if row is None:
        raise ConfigError(
            f"the installed bfcl-eval has no multi-turn entry {entry_id!r}",
            field="environment.config.entry",
        )
    return LiveEntry.from_row(row)


def multi_turn(config: Mapping[str, Any]) -> BfclEnvironment:
    """The factory of ``bfcl_multi_turn`` (see the module docstring)."""
    checked = _config(config)
    load_classes(())  # bfcl-eval missing: refused with the install, before any row
    entry = checked.get("entry")
    return BfclEnvironment(_package_entry(entry) if entry else None)


def is_bfcl(environment: Mapping[str, Any]) -> bool:
    """Whether a plan's checked ``environment`` ({name, config}) is this one."""
    return environment_factory(str(environment["name"]), allow_import=True) is multi_turn


def _row(sample: Sample) -> dict[str, Any]:
    """The question row a run's sample was read from (the dataset's id, not an attempt's)."""
    row_id = sample.metadata.get("dataset_row_id", sample.id)
    return {**sample.metadata, "id": row_id}


def _attempt(sample: Sample) -> int:
    attempt = sample.metadata.get("attempt", 1)
    return attempt if isinstance(attempt, int) and attempt >= 1 else 1


def _entry(sample: Sample, config: Mapping[str, Any]) -> LiveEntry:
    """The row's own entry (its BFCL columns), else the config's ``entry``."""
    if "question" not in sample.metadata and config.get("entry"):
        return _package_entry(str(config["entry"]))
    try:
        return LiveEntry.from_row(_row(sample))
    except ConfigError as exc:
        raise ConnectorError(
            f"not a BFCL multi-turn entry: {exc} (the dataset is a BFCL multi-turn "
            "question file, BFCL_v4_multi_turn_*.json)",
            row=sample.id,
        ) from None


class BfclTools(EnvironmentTools):
    """BFCL's environment served per episode: each row and attempt on its own entry."""

    def open(self, sample: Sample) -> EnvironmentSession:
        environment = multi_turn(self.config)
        environment.reset(_entry(sample, self.config))
        return EnvironmentSession(environment, self.name)


def tools_for(environment: Mapping[str, Any]) -> EnvironmentTools:
    """The per-episode tools of a plan's ``environment``: BFCL's entry by entry, else generic."""
    return BfclTools(environment) if is_bfcl(environment) else EnvironmentTools(environment)


_file_locks: dict[Path, threading.Lock] = {}
_locks_lock = threading.Lock()


def _order(entry_id: str) -> tuple[str, int]:
    category, _, number = entry_id.rpartition("_")
    return (category, int(number)) if number.isdigit() else (entry_id, -1)


def write_result_line(results_dir: Path, category: str, attempt: int, line: dict[str, Any]) -> Path:
    """Put one entry's BFCL result line into its category's result file (its old line replaced)."""
    folder = results_dir if attempt == 1 else results_dir / f"attempt{attempt}"
    path = folder / f"BFCL_v4_{category}_result.json"
    with _locks_lock:
        lock = _file_locks.setdefault(path.resolve(), threading.Lock())
    with lock:
        lines: dict[str, dict[str, Any]] = {}
        if path.is_file():
            for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if not text.strip():
                    continue
                try:
                    kept = json.loads(text)
                except ValueError:
                    raise ConnectorError(
                        f"{path} line {number} is not JSON: not a BFCL result file to add to"
                    ) from None
                lines[str(kept.get("id"))] = kept
        lines[str(line["id"])] = line
        body = "".join(json.dumps(lines[k]) + "\n" for k in sorted(lines, key=_order))
        folder.mkdir(parents=True, exist_ok=True)
        with atomic_write(path, "w", encoding="utf-8") as handle:
            handle.write(body)
    return path


def _inference_error(entry: LiveEntry, error: ToolEvalError) -> dict[str, Any]:
    """The line BFCL writes for an entry whose inference failed (its checker: inference_error)."""
    return {"id": entry.id, "result": f"Error during inference: {error.message}"}


_NOT_WITH_BFCL = ("tools", "tool_executor", "user", "max_turns")


def chat_connector(
    config: Mapping[str, Any],
    environment: Mapping[str, Any],
    *,
    base_dir: Path | None,
    prefix: str = "connector",
) -> BfclChatConnector:
    """An ``openai`` connector's config run through BFCL's entries (the plan's environment)."""
    for key in _NOT_WITH_BFCL:
        if config.get(key) is not None:
            raise ConfigError(
                "BFCL's entries bring their own tools, user turns and step limit "
                f"({STEP_LIMIT} steps with calls per turn): leave {key} out",
                field=f"{prefix}.{key}",
            )
    limit = config.get("episode_timeout")
    if limit is not None and (
        isinstance(limit, bool) or not isinstance(limit, int | float) or limit <= 0
    ):
        raise ConfigError(
            f"expected a number of seconds > 0 for one whole entry, got {limit!r}",
            field=f"{prefix}.episode_timeout",
        )
    rest = {k: v for k, v in config.items() if k not in ("environment", "episode_timeout")}
    inner = connector_config.connector_from_config(rest, base_dir=base_dir, prefix=prefix)
    return BfclChatConnector(
        inner,
        environment,
        base_dir=base_dir,
        episode_timeout=None if limit is None else float(limit),
    )


class BfclChatConnector:
    """An ``openai`` connector run through BFCL multi-turn entries (see the module docstring)."""

    #: What a row gives it (preflight's word): the whole sample, whose BFCL turns are the prompt.
    argument = "sample"

    def __init__(
        self,
        inner: Any,
        environment: Mapping[str, Any],
        *,
        base_dir: Path | None = None,
        episode_timeout: float | None = None,
    ) -> None:
        self.inner = inner
        self.environment = {"name": environment["name"], "config": dict(environment["config"])}
        config = _config(self.environment["config"])
        self.config = config
        folder = config.get("results_dir")
        if folder is not None:
            path = Path(folder).expanduser()
            self.results_dir: Path | None = (
                path if path.is_absolute() or base_dir is None else base_dir / path
            )
            if self.results_dir.exists() and not self.results_dir.is_dir():
                raise ConfigError(
                    f"{self.results_dir} exists and is not a folder",
                    field="environment.config.results_dir",
                )
        else:
            self.results_dir = None
        self.episode_timeout = episode_timeout

    def describe(self) -> dict[str, Any]:
        out = dict(self.inner.describe())
        out["environment"] = self.environment
        out["bfcl"] = {
            "step_limit": STEP_LIMIT,
            "results_dir": None if self.results_dir is None else str(self.results_dir),
        }
        out.pop("max_turns", None)  # BFCL's step limit per turn applies instead
        return out

    def _deadline(self, entry: LiveEntry) -> float:
        if self.episode_timeout is not None:
            return self.episode_timeout
        inner = self.inner
        return len(entry.turns) * (STEP_LIMIT + 1) * inner.timeout * inner.retry.attempts

    def call(self, sample: Sample | str) -> AgentResponse:
        """One entry, synchronously (the async loop in a fresh event loop)."""
        return asyncio.run(self.acall(sample))

    async def acall(self, sample: Sample | str) -> AgentResponse:
        """One entry, turn by turn (see the module docstring)."""
        sample = as_sample(sample)
        entry = _entry(sample, self.config)
        try:
            environment = BfclEnvironment(entry)
            await asyncio.to_thread(environment.reset)
        except ToolEvalError as exc:
            raise ConnectorError(
                f"BFCL's simulated APIs could not start for this entry: {exc.message}",
                row=sample.id,
            ) from None
        session = EnvironmentSession(environment, str(self.environment["name"]))
        episode = _Episode(self.inner, sample, entry, session)
        limit = self._deadline(entry)
        try:
            async with asyncio.timeout(limit):
                await episode.run()
        except TimeoutError:
            failed = ConnectorError(
                f"the BFCL entry did not end within its {limit:g} s deadline (episode_timeout) "
                f"after {len(episode.raws)} model replies",
                row=sample.id,
            )
            await self._write(sample, entry, _inference_error(entry, failed))
            raise failed from None
        except ToolEvalError as exc:
            await self._write(sample, entry, _inference_error(entry, exc))
            raise
        finally:
            await asyncio.to_thread(session.close)
        line = episode.live.line()
        await self._write(sample, entry, line)
        return episode.response(line)

    async def _write(self, sample: Sample, entry: LiveEntry, line: dict[str, Any]) -> None:
        if self.results_dir is not None:
            await asyncio.to_thread(
                write_result_line, self.results_dir, entry.category, _attempt(sample), line
            )

    async def aclose(self) -> None:
        await self.inner.aclose()

    def close(self) -> None:
        self.inner.close()


class _Episode:
    """One entry's conversation with the model: BFCL's turn and step loop."""

    def __init__(
        self, inner: Any, sample: Sample, entry: LiveEntry, session: EnvironmentSession
    ) -> None:
        self.inner = inner
        self.sample = sample
        self.entry = entry
        self.session = session
        self.live = LiveResult(entry.id)
        self.wire: list[dict[str, Any]] = []
        self.messages: list[Message] = []
        self.calls: list[ToolCall] = []
        self.raws: list[Any] = []
        self.status = 0
        self.tally = RetryTally()
        self.started = time.perf_counter()
        if inner.system:
            self.wire.append({"role": "system", "content": inner.system})
            self.messages.append(SystemMessage(inner.system))

    async def run(self) -> None:
        for turn in range(len(self.entry.turns)):
            self.live.start_turn()
            for message in self.entry.messages(turn):
                self.wire.append(message)
                content = str(message.get("content") or "")
                is_system = message.get("role") == "system"
                self.messages.append(SystemMessage(content) if is_system else UserMessage(content))
            if not await self._turn(self.entry.tools(turn)):
                self.live.force_quit = True
                return

    async def _turn(self, tools: list[dict[str, Any]]) -> bool:
        """BFCL's steps of one turn; False when the step limit force-quit the entry."""
        inner = self.inner
        client = inner._async_http_client()
        steps = 0
        while True:
            began = time.perf_counter()
            data, message = await self._ask(client, tools)
            self.raws.append(data)
            step = self.live.step(message, data.get("usage"), time.perf_counter() - began)
            self.wire.append(message)  # BFCL keeps every assistant message in the history
            decoded = decode_step(step)
            if decoded is None:
                self.messages.append(AssistantMessage(str(message.get("content") or "")))
                return True
            ids = [c.get("id") for c in message.get("tool_calls") or ()]
            done = []
            for index, (name, arguments) in enumerate(decoded):
                call_id = ids[index] if index < len(ids) else None
                ran = await asyncio.to_thread(
                    self.session.call, ToolCall(name, arguments, id=call_id)
                )
                done.append(ran)
                self.wire.append({"role": "tool", "content": ran.result, "tool_call_id": call_id})
            self.calls.extend(done)
            self.messages.append(AssistantMessage(str(message.get("content") or ""), tuple(done)))
            self.messages.extend(ToolMessage(c.result, c.id, c.name, c.is_error) for c in done)
            steps += 1
            if steps > STEP_LIMIT:
                return False

    async def _ask(self, client: Any, tools: list[dict[str, Any]]) -> tuple[Any, dict[str, Any]]:
        """One model reply (the completion and its message), retried as the connector's policy says."""
        inner, policy = self.inner, self.inner.retry
        body = {**inner.params, "model": inner.model, "messages": self.wire, "tools": tools}
        while True:
            response, tries = await asend(
                client,
                "POST",
                inner._target(),
                policy=policy,
                display_url=inner.url,
                json=body,
                headers=inner._headers(),
                timeout=inner.timeout,
            )
            self.tally.sent(tries)
            self.status = response.status_code
            try:
                data, message, _calls = inner._reply(response, self.sample)
            except UnreadableBody as exc:  # retry.invalid_body: ask again, as the tool loop does
                if not policy.invalid_body or self.tally.body >= policy.retries:
                    raise exc.after(self.tally) from None
                self.tally.body += 1
                await asyncio.sleep(policy.delay(self.tally.body))
                continue
            return data, message

    def response(self, line: dict[str, Any]) -> AgentResponse:
        truth, why = ground_truth(self.entry)
        bfcl: dict[str, Any] = {"live": {"step_limit": STEP_LIMIT}}
        if self.live.force_quit:
            bfcl["live"]["force_quit"] = True
        if truth is not None:
            bfcl["multi_turn"] = {
                "entry": self.entry.question_row(),
                "ground_truth": truth,
                "result": line["result"],
                "mode": "fc",
            }
        else:
            bfcl["live"]["result"] = line["result"]
            bfcl["live"]["not_graded"] = why
        warnings = (
            ()
            if not self.live.force_quit
            else (
                f"force-quit after {STEP_LIMIT} steps with calls in one turn (BFCL's step limit)",
            )
        )
        last = self.messages[-1] if self.messages else None
        output = last.content if isinstance(last, AssistantMessage) else None
        return AgentResponse(
            output,
            self.calls,
            {"turns": self.raws},
            (time.perf_counter() - self.started) * 1000.0,
            self.status,
            1 + self.tally.http + self.tally.body,  # the conversation's attempts, as the tool loop
            messages=self.messages,
            warnings=warnings,
            retries=self.tally.counts(),
            metadata={"episode": self.session.record(), "bfcl": bfcl},
        )
