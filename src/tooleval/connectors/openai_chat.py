"""OpenAI-compatible chat connector: the model *is* the agent under test.

Each row's input is sent as a chat request with your ``tools``; the
``tool_calls`` of the reply are what the agent called. This is single-turn:
tooleval does not run your tools. Give a ``tool_executor`` (a function, sync
or async, ``ToolCall -> result``) and the connector loops instead, feeding
each result back as a ``tool`` message, up to ``max_turns`` model replies.
Give ``tool_sessions`` (an environment served by ``tooleval.serving``, what a
plan's ``environment:`` makes) and the loop runs on a fresh environment per
row and attempt: every call is executed and recorded by tooleval (the row's
``metadata.episode``), and the whole episode has a deadline
(``episode_timeout``). Give ``user`` (a simulated user, ``tooleval.simulators``)
and the user speaks first and answers each final reply of the agent until it
says its stop signal; its messages are kept in the transcript, and the audit
of the user (``metadata.simulator.audit``) is the row's own verdict: a run
leaves the agent unjudged on a row whose *user* broke.

Plain httpx (not the openai SDK) keeps the core light; any server speaking
``POST {base_url}/chat/completions`` works (OpenAI, vLLM, llama.cpp, Ollama).

>>> c = OpenAIChatConnector(base_url="http://127.0.0.1:8080/v1", model="m",
...                         api_key_env="OPENAI_API_KEY",
...                         tools=[{"name": "search", "parameters": {"type": "object"}}])
>>> c.describe()["tools"], c.describe()["api_key_env"]
(['search'], 'OPENAI_API_KEY')
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tooleval.connectors.clients import HttpClients
from tooleval.connectors.http import safe_url
from tooleval.connectors.paths import call_from_object
from tooleval.connectors.response import AgentResponse, as_sample
from tooleval.connectors.retry import RetryPolicy, RetryTally, UnreadableBody, asend, send
from tooleval.connectors.template import env_references, resolve_env
from tooleval.connectors.tool_session import SimulatedUser, ToolSession, ToolSessions
from tooleval.errors import ConfigError, ConnectorError, ToolEvalError
from tooleval.model import (
    AssistantMessage,
    Message,
    Sample,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from tooleval.urlsafe import mask_url, shown_url

__all__ = ["OpenAIChatConnector", "normalise_tools"]


def normalise_tools(
    tools: Sequence[Any] | None, *, field: str = "connector.tools"
) -> list[dict[str, Any]]:
    """Accept OpenAI tool specs or the short form ``{"name", "description", "parameters"}``.

    >>> normalise_tools([{"name": "f"}])[0]["function"]["parameters"]
    {'type': 'object', 'properties': {}}
    """
    out = []
    for i, tool in enumerate(tools or ()):
        if not isinstance(tool, Mapping):
            raise ConfigError(
                f"expected a tool object, got {type(tool).__name__}", field=f"{field}[{i}]"
            )
        if tool.get("type") == "function" and isinstance(tool.get("function"), Mapping):
            spec = dict(tool["function"])
        else:
            spec = dict(tool)
        if not isinstance(spec.get("name"), str) or not spec["name"]:
            raise ConfigError("every tool needs a 'name'", field=f"{field}[{i}]")
        spec.setdefault("parameters", {"type": "object", "properties": {}})
        out.append({"type": "function", "function": spec})
    return out


class OpenAIChatConnector(HttpClients):
    """Calls an OpenAI-compatible ``/chat/completions`` endpoint with tools."""

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key_env: str | None = None,
        tools: Sequence[Any] | None = None,
        system: str | None = None,
        params: Mapping[str, Any] | None = None,
        tool_executor: Callable[[ToolCall], Any] | None = None,
        max_turns: int | None = None,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        client: Any = None,
        async_client: Any = None,
        tool_sessions: ToolSessions | None = None,
        episode_timeout: float | None = None,
        user: SimulatedUser | None = None,
    ) -> None:
        # ${VAR} (e.g. ${AGENT_URL}/v1) is read from the environment at call time.
        if not isinstance(base_url, str) or not (
            base_url.startswith(("http://", "https://")) or env_references(base_url)
        ):
            raise ConfigError(
                f"expected an http(s) base URL such as http://127.0.0.1:8000/v1, got {base_url!r}",
                field="connector.base_url",
            )
        if not isinstance(model, str) or not model:
            raise ConfigError("expected the model name", field="connector.model")
        if tool_executor is not None and tool_sessions is not None:
            raise ConfigError(
                "give a tool_executor or an environment, not both (the environment runs the "
                "tools itself)",
                field="connector.tool_executor",
            )
        loops = tool_executor is not None or tool_sessions is not None
        turns = max_turns if max_turns is not None else (8 if loops else 1)
        if isinstance(turns, bool) or not isinstance(turns, int) or turns < 1:
            raise ConfigError(
                f"expected an integer >= 1, got {max_turns!r}", field="connector.max_turns"
            )
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            raise ConfigError(
                f"expected a number of seconds > 0, got {timeout!r}", field="connector.timeout"
            )
        self.base_url = base_url.rstrip("/")
        self.url = self.base_url + "/chat/completions"
        self.model = model
        self.api_key_env = api_key_env
        self.tool_sessions = tool_sessions
        self.user = user
        # Given tools win; else the served environment's own tools are offered.
        self.tools = normalise_tools(
            tools if tools or tool_sessions is None else tool_sessions.tool_specs()
        )
        self.system = system
        self.params = dict(params or {})
        self.tool_executor = tool_executor
        self.max_turns = turns
        self.timeout = float(timeout)
        self.retry = retry or RetryPolicy()
        if episode_timeout is not None and (
            isinstance(episode_timeout, bool)
            or not isinstance(episode_timeout, int | float)
            or episode_timeout <= 0
        ):
            raise ConfigError(
                f"expected a number of seconds > 0 for one whole episode, got {episode_timeout!r}",
                field="connector.episode_timeout",
            )
        # Default: every turn (the agent's and the user's) may take its full timeout on every attempt.
        user_turns = 0 if user is None else user.max_turns
        self.episode_timeout = (
            float(episode_timeout)
            if episode_timeout is not None
            else (self.max_turns + user_turns) * self.timeout * self.retry.attempts
        )
        self._init_clients(client, async_client)

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": "openai",
            "base_url": safe_url(self.base_url),
            "model": self.model,
            "api_key_env": self.api_key_env,
            "tools": [t["function"]["name"] for t in self.tools],
            "max_turns": self.max_turns,
            "tool_executor": None
            if self.tool_executor is None
            else f"{getattr(self.tool_executor, '__module__', '?')}:"
            f"{getattr(self.tool_executor, '__qualname__', '?')}",
            "timeout": self.timeout,
            "retry": self.retry.to_dict(),
        }
        if self.tool_sessions is not None:
            out["environment"] = self.tool_sessions.describe()
        if self.user is not None:
            out["user"] = self.user.describe()
        if self.tool_sessions is not None or self.user is not None:
            out["episode_timeout"] = self.episode_timeout
        if self.system is not None:
            out["system"] = self.system
        if self.params:
            out["params"] = self.params
        return out

    # ------------------------------------------------------------ helpers
    def _target(self) -> str:
        """The endpoint with ``${VAR}`` resolved now (never stored)."""
        url = resolve_env(self.url, field="connector.base_url")
        if not url.startswith(("http://", "https://")):
            raise ConfigError(
                "expected an http(s) base URL once ${...} is filled in, got "
                f"{mask_url(url, template=self.url)!r}",
                field="connector.base_url",
            )
        return url

    def _headers(self) -> dict[str, str]:
        if not self.api_key_env:
            return {}
        key = os.environ.get(self.api_key_env)
        if key is None:
            raise ConfigError(
                f"environment variable {self.api_key_env} is not set", field="connector.api_key_env"
            )
        return {"Authorization": f"Bearer {key}"}

    def _start(self, sample: Sample) -> tuple[list[dict[str, Any]], list[Message]]:
        wire: list[dict[str, Any]] = []
        model: list[Message] = []
        if self.system:
            wire.append({"role": "system", "content": self.system})
            model.append(SystemMessage(self.system))
        if self.user is None:  # a simulated user speaks first, in its own words
            text = sample.user_input()
            wire.append({"role": "user", "content": text})
            model.append(UserMessage(text))
        return wire, model

    def _body(self, wire: list[dict[str, Any]]) -> dict[str, Any]:
        body: dict[str, Any] = {**self.params, "model": self.model, "messages": wire}
        if self.tools:
            body["tools"] = self.tools
        return body

    def _reply(
        self, response: Any, sample: Sample
    ) -> tuple[dict[str, Any], dict[str, Any], list[ToolCall]]:
        if not response.text.strip():
            raise UnreadableBody(
                f"{shown_url(self.url)} returned an empty body instead of a chat completion",
                status=response.status_code,
                row=sample.id,
            )
        try:
            data = response.json()
        except ValueError:
            raise UnreadableBody(
                f"{shown_url(self.url)} returned a body that is not JSON: "
                f"{' '.join(response.text.split())[:200]}",
                status=response.status_code,
                row=sample.id,
            ) from None
        try:
            message = data["choices"][0]["message"]
        except (KeyError, IndexError, TypeError):
            raise ConnectorError(
                f"{shown_url(self.url)} did not return a chat completion (choices[0].message): "
                f"{' '.join(response.text.split())[:200]}",
                status=response.status_code,
                row=sample.id,
            ) from None
        calls = [
            call_from_object(tc, where=f"choices[0].message.tool_calls[{i}]")
            for i, tc in enumerate(message.get("tool_calls") or ())
        ]
        return data, message, calls

    @staticmethod
    def _tool_result(call: ToolCall, result: Any, is_error: bool) -> dict[str, Any]:
        content = result if isinstance(result, str) else json.dumps(result, default=str)
        return {"role": "tool", "tool_call_id": call.id, "content": content}

    # ------------------------------------------------------------ calls
    def call(self, sample: Sample | str) -> AgentResponse:
        """One row, synchronously (tool executor results are fed back when given)."""
        sample = as_sample(sample)
        if self.user is not None:  # the simulated user is an async model client
            return asyncio.run(self.acall(sample))
        client = self._sync_client()
        session = self._open(sample)
        turns = _Turns(self, sample, session)
        try:
            for turn in range(self.max_turns):
                while True:
                    turns.check_deadline()
                    response, tries = send(client, "POST", self._target(), **turns.request())
                    pending = turns.reply(response, tries)
                    if not isinstance(pending, float):
                        break
                    time.sleep(pending)  # an unreadable body: ask again
                if not pending:
                    break
                turns.ran(turn, [self._run_one_sync(session, c) for c in pending])
            return turns.response()
        finally:
            if session is not None:
                session.close()

    async def acall(self, sample: Sample | str) -> AgentResponse:
        """One row, asynchronously (same behaviour as :meth:`call`)."""
        sample = as_sample(sample)
        session = await asyncio.to_thread(self._open, sample)
        turns = _Turns(self, sample, session)
        try:
            if session is None and self.user is None:
                return await self._aloop(turns, None)
            try:
                async with asyncio.timeout(self.episode_timeout):
                    return await self._aloop(turns, session)
            except TimeoutError:
                raise turns.past_deadline() from None
        finally:
            if session is not None:
                await asyncio.to_thread(session.close)

    async def _aloop(self, turns: _Turns, session: ToolSession | None) -> AgentResponse:
        client = self._async_http_client()
        if self.user is not None and not await turns.user_turn(self.user):
            return turns.response()
        for turn in range(self.max_turns):
            while True:
                response, tries = await asend(client, "POST", self._target(), **turns.request())
                pending = turns.reply(response, tries)
                if not isinstance(pending, float):
                    break
                await asyncio.sleep(pending)  # an unreadable body: ask again
            if not pending:
                if self.user is None or not await turns.user_turn(self.user):
                    break
                continue
            ran = []
            for call in pending:
                if session is not None:
                    # In a worker thread: a slow tool never blocks the other rows' episodes.
                    done = await asyncio.to_thread(session.call, call)
                    ran.append((done, done.result, done.is_error))
                else:
                    assert self.tool_executor is not None  # reply() returns no calls without one
                    ran.append((call, *await _run_async(self.tool_executor, call)))
            turns.ran(turn, ran)
        return turns.response()

    def _open(self, sample: Sample) -> ToolSession | None:
        """A fresh tool session for this row and attempt (None: no environment served)."""
        if self.tool_sessions is None:
            return None
        try:
            return self.tool_sessions.open(sample)
        except ToolEvalError as exc:
            raise ConnectorError(
                f"the environment could not start for this row: {exc.message}", row=sample.id
            ) from None

    def _run_one_sync(
        self, session: ToolSession | None, call: ToolCall
    ) -> tuple[ToolCall, Any, bool]:
        if session is not None:
            done = session.call(call)
            return done, done.result, done.is_error
        assert self.tool_executor is not None  # reply() returns no calls without one
        return (call, *_run_sync(self.tool_executor, call))


class _Turns:
    """One row's conversation so far; :meth:`OpenAIChatConnector.call` and ``acall`` do the I/O."""

    def __init__(
        self, connector: OpenAIChatConnector, sample: Sample, session: ToolSession | None = None
    ) -> None:
        self.connector = connector
        self.sample = sample
        self.session = session
        self.runs_tools = session is not None or connector.tool_executor is not None
        self.user_messages = 0
        self.user_stopped = False
        self.user_error: str | None = None
        self.wire, self.model = connector._start(sample)
        self.started = time.perf_counter()
        self.raws: list[Any] = []
        self.calls: list[ToolCall] = []
        self.warnings: list[str] = []
        self.attempts = 0
        self.tally = RetryTally()
        self.status = 0
        self.output: str | None = None

    def request(self) -> dict[str, Any]:
        """The keyword arguments of ``send``/``asend`` for the next model request."""
        c = self.connector
        return {
            "policy": c.retry,
            "display_url": c.url,
            "json": c._body(self.wire),
            "headers": c._headers(),
            "timeout": c.timeout,
        }

    def reply(self, response: Any, tries: int) -> list[ToolCall] | float:
        """Take in a model reply; return the calls to run (none: the conversation is over).

        A reply whose body cannot be read returns the seconds to wait before
        asking again (``retry.invalid_body``), or raises once retries are spent.
        """
        self.attempts, self.status = self.attempts + tries, response.status_code
        self.tally.sent(tries)
        policy = self.connector.retry
        try:
            data, message, new_calls = self.connector._reply(response, self.sample)
        except UnreadableBody as exc:
            if not policy.invalid_body or self.tally.body >= policy.retries:
                raise exc.after(self.tally) from None
            self.tally.body += 1
            return policy.delay(self.tally.body)
        new_calls, message = _with_ids(new_calls, message, len(self.raws))
        self.raws.append(data)
        self.output = message.get("content")
        if not new_calls or not self.runs_tools:
            self.calls.extend(new_calls)
            self.model.append(AssistantMessage(self.output or "", tuple(new_calls)))
            return []
        self.wire.append(message)
        return new_calls

    def ran(self, turn: int, outcomes: list[tuple[ToolCall, Any, bool]]) -> None:
        """Feed the executed calls' ``(call, result, is_error)`` back to the model."""
        done = []
        for call, result, is_error in outcomes:
            done.append(call.with_result(result, is_error=is_error))
            self.wire.append(self.connector._tool_result(call, result, is_error))
        self.calls.extend(done)
        self.model.append(AssistantMessage(self.output or "", tuple(done)))
        self.model.extend(ToolMessage(c.result, c.id, c.name, c.is_error) for c in done)
        if turn == self.connector.max_turns - 1:
            self.warnings.append(
                f"stopped after max_turns={self.connector.max_turns} with tool calls pending"
            )
            self.output = None

    async def user_turn(self, user: SimulatedUser) -> bool:
        """The simulated user's next message; False when the episode ends here."""
        if self.user_messages >= user.max_turns:
            self.warnings.append(f"the simulated user reached its max_turns={user.max_turns}")
            return False
        try:
            async with asyncio.timeout(self.connector.timeout):
                text = await user.anext(self.sample, self.wire)
        except TimeoutError:
            self.user_error = f"no reply within {self.connector.timeout:g} s"
            return False
        except Exception as exc:  # the simulator's failure is audited, never the agent's
            self.user_error = f"{type(exc).__name__}: {exc}"
            return False
        self.user_messages += 1
        self.model.append(UserMessage(text))
        self.wire.append({"role": "user", "content": text})
        if user.stopped(text):
            self.user_stopped = True
            return False
        return True

    def check_deadline(self) -> None:
        """Raise when a served episode ran past ``episode_timeout`` (the sync loop's check)."""
        elapsed = time.perf_counter() - self.started
        if self.session is not None and elapsed > self.connector.episode_timeout:
            raise self.past_deadline()

    def past_deadline(self) -> ConnectorError:
        limit = self.connector.episode_timeout
        return ConnectorError(
            f"the episode did not end within its {limit:g} s deadline (episode_timeout) "
            f"after {len(self.raws)} model replies and {len(self.calls)} tool calls",
            row=self.sample.id,
        )

    def _user_record(self) -> dict[str, Any] | None:
        """The simulated user's turns and audit (metadata.simulator): the audit is its own verdict.

        A failed audit is not the connector's error: the run reports it per row
        and leaves the agent unjudged there (``tooleval.serving.users.user_broke``).
        """
        user = self.connector.user
        if user is None:
            return None
        audit = user.audit(self.sample, self.wire, stopped=self.user_stopped, error=self.user_error)
        return {**user.describe(), "turns": self.user_messages, "audit": audit.to_dict()}

    def response(self) -> AgentResponse:
        metadata: dict[str, Any] = {}
        if self.session is not None:
            metadata["episode"] = self.session.record()
        simulator = self._user_record()
        if simulator is not None:
            metadata["simulator"] = simulator
        raw = self.raws[0] if len(self.raws) == 1 else {"turns": self.raws}
        return AgentResponse(
            self.output,
            self.calls,
            raw,
            (time.perf_counter() - self.started) * 1000.0,
            self.status,
            # HTTP attempts of the conversation: one plus its retries (turns are not attempts)
            1 + self.tally.http + self.tally.body,
            messages=self.model,
            warnings=tuple(self.warnings),
            retries=self.tally.counts(),
            metadata=metadata or None,
        )


def _with_ids(
    calls: list[ToolCall], message: dict[str, Any], turn: int
) -> tuple[list[ToolCall], dict[str, Any]]:
    """Give calls the model sent without an id one, so no tool message says ``tool_call_id: null``.

    >>> calls, msg = _with_ids([ToolCall("f", {})], {"tool_calls": [{"function": {}}]}, 2)
    >>> calls[0].id, msg["tool_calls"][0]["id"]
    ('call_2_0', 'call_2_0')
    """
    if all(c.id for c in calls):
        return calls, message
    named = [
        c if c.id else dataclasses.replace(c, id=f"call_{turn}_{i}") for i, c in enumerate(calls)
    ]
    wire = list(message.get("tool_calls") or ())
    fixed = [
        {**tc, "id": call.id} if isinstance(tc, dict) else tc
        for tc, call in zip(wire, named, strict=False)
    ]
    return named, {**message, "tool_calls": fixed}


def _run_sync(executor: Callable[[ToolCall], Any], call: ToolCall) -> tuple[Any, bool]:
    # A failing tool is part of the conversation (the model sees the error), not a crash.
    try:
        result = executor(call)
        if inspect.isawaitable(result):
            result = asyncio.run(_await(result))
    except Exception as exc:
        return f"error: {type(exc).__name__}: {exc}", True
    return result, False


async def _run_async(executor: Callable[[ToolCall], Any], call: ToolCall) -> tuple[Any, bool]:
    try:
        if inspect.iscoroutinefunction(executor):
            result = await executor(call)
        else:
            result = await asyncio.to_thread(executor, call)
            if inspect.isawaitable(result):
                result = await result
    except Exception as exc:
        return f"error: {type(exc).__name__}: {exc}", True
    return result, False


async def _await(value: Any) -> Any:
    return await value
