"""BFCL multi-turn entries run live: what one entry offers a model, and its calls' answers.

An entry of a multi-turn question file (``BFCL_v4_multi_turn_*.json``: ``id``,
``question``, ``involved_classes``, ``initial_config``, and for
``multi_turn_miss_func`` ``missed_function``) is run as BFCL's own inference
does for a function-calling model:

* the tools are BFCL's function docs of the involved classes
  (``multi_turn_func_doc`` of the installed ``bfcl-eval``) converted by BFCL's
  ``convert_to_tool`` for OpenAI; a missed function is held out until its turn,
  which then has no user message of its own and says BFCL's
  ``DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC`` instead;
* each model reply is one *step*: its tool calls as ``{name: arguments}``
  (the arguments exactly as the model sent them), or its text when it made no
  call; a step BFCL cannot decode (no call, arguments that are not a JSON
  object) ends the turn, and is kept in the result as BFCL keeps it;
* the calls of a step run on the entry's own instances of BFCL's simulated
  APIs (:class:`~tooleval.benchmarks.bfcl.multi_turn_env.BfclApis`), whose
  state carries over from step to step and turn to turn, and each answer goes
  back to the model as a ``tool`` message;
* more than :data:`STEP_LIMIT` steps with calls in one turn force-quit the
  entry (BFCL's ``MAXIMUM_STEP_LIMIT``): the turns after it are not run, and
  BFCL's checker fails the entry as ``multi_turn:force_terminated``.

:class:`BfclEnvironment` is the environment protocol over one entry (reset to
an entry, call by name, state); :class:`LiveResult` collects the steps into
BFCL's result line, ``{"id", "result": [[step, ...] per turn], ...}``, which
BFCL's checker and ``tooleval score --format bfcl`` read.

>>> decode_step([{"add": '{"a": 1, "b": 2}'}])
[('add', {'a': 1, 'b': 2})]
>>> decode_step("The sum is 3.") is None
True
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from tooleval.benchmarks.bfcl.multi_turn_data import (
    MULTI_TURN_CATEGORIES,
    package_data,
    version_mismatch,
)
from tooleval.benchmarks.bfcl.multi_turn_env import BfclApis, load_classes
from tooleval.environments.protocol import CallOutcome
from tooleval.errors import ConfigError

__all__ = [
    "ADDITIONAL_FUNCTION_PROMPT",
    "STEP_LIMIT",
    "BfclEnvironment",
    "LiveEntry",
    "LiveResult",
    "MULTI_TURN_CLASSES",
    "class_docs",
    "decode_step",
    "ground_truth",
    "openai_tools",
]

#: BFCL's ``MAXIMUM_STEP_LIMIT``: steps with calls one turn may take before the entry is force-quit.
STEP_LIMIT = 20
#: What BFCL's user says in a turn that only adds held-out functions (function-calling models).
ADDITIONAL_FUNCTION_PROMPT = (
    "I have updated some more functions you can choose from. What about now?"
)
_ERROR_PREFIX = "Error during execution:"
#: The classes of BFCL's multi-turn categories (no two share a function name).
MULTI_TURN_CLASSES = (
    "GorillaFileSystem",
    "MathAPI",
    "MessageAPI",
    "TwitterAPI",
    "TicketAPI",
    "TradingBot",
    "TravelAPI",
    "VehicleControlAPI",
)


@lru_cache(maxsize=32)
def class_docs(class_name: str) -> tuple[dict[str, Any], ...]:
    """BFCL's function docs of one class (``multi_turn_func_doc`` of the installed bfcl-eval)."""
    import bfcl_eval
    from bfcl_eval.constants.executable_backend_config import MULTI_TURN_FUNC_DOC_FILE_MAPPING

    if class_name not in MULTI_TURN_FUNC_DOC_FILE_MAPPING:
        raise ConfigError(
            f"unknown BFCL class {class_name!r} in involved_classes", field="involved_classes"
        )
    path = (
        Path(bfcl_eval.__file__).parent
        / "data"
        / "multi_turn_func_doc"
        / MULTI_TURN_FUNC_DOC_FILE_MAPPING[class_name]
    )
    lines = path.read_text(encoding="utf-8").splitlines()
    return tuple(json.loads(line) for line in lines if line.strip())


def openai_tools(docs: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """BFCL's function docs as the OpenAI tool specs BFCL's OpenAI handler sends (its own code)."""
    from bfcl_eval.constants.enums import ModelStyle
    from bfcl_eval.constants.type_mappings import GORILLA_TO_OPENAPI
    from bfcl_eval.model_handler.utils import convert_to_tool

    tools: list[dict[str, Any]] = convert_to_tool(
        [dict(d) for d in docs], GORILLA_TO_OPENAPI, ModelStyle.OPENAI_COMPLETIONS
    )
    return tools


def _field(row: Mapping[str, Any], key: str, kind: type, what: str) -> Any:
    value = row.get(key)
    if not isinstance(value, kind):
        raise ConfigError(
            f"a BFCL multi-turn entry needs {key} ({what}), got {type(value).__name__}",
            field=key,
        )
    return value


@dataclass(frozen=True, slots=True)
class LiveEntry:
    """One multi-turn entry as BFCL runs it: its turns, classes, initial state and tools."""

    id: str
    category: str
    turns: tuple[tuple[dict[str, Any], ...], ...]
    involved_classes: tuple[str, ...]
    initial_config: dict[str, Any]
    functions: tuple[dict[str, Any], ...]
    held_out: dict[int, tuple[dict[str, Any], ...]] = field(default_factory=dict)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> LiveEntry:
        """The entry of a question row (a ConfigError names the field that is not BFCL's)."""
        entry_id = _field(row, "id", str, "text such as multi_turn_base_0")
        category = entry_id.rsplit("_", 1)[0]
        if category not in MULTI_TURN_CATEGORIES:
            raise ConfigError(
                f"{entry_id!r} is not an entry of BFCL's multi-turn categories "
                f"({', '.join(MULTI_TURN_CATEGORIES)})",
                field="id",
            )
        question = _field(row, "question", list, "a list of turns, each a list of messages")
        turns = []
        for index, turn in enumerate(question):
            if not isinstance(turn, list) or not all(
                isinstance(m, Mapping) and isinstance(m.get("role"), str) for m in turn
            ):
                raise ConfigError(
                    "expected a list of {role, content} messages", field=f"question[{index}]"
                )
            turns.append(tuple(dict(m) for m in turn))
        classes = _field(row, "involved_classes", list, "a list of BFCL class names")
        if not all(isinstance(c, str) for c in classes):
            raise ConfigError("expected class names", field="involved_classes")
        config = row.get("initial_config") or {}
        if not isinstance(config, Mapping):
            raise ConfigError(
                f"expected an object, got {type(config).__name__}", field="initial_config"
            )
        load_classes(classes)
        functions = [dict(doc) for name in classes for doc in class_docs(name)]
        held_out = _held_out(row.get("missed_function"), functions)
        return cls(
            entry_id,
            category,
            tuple(turns),
            tuple(classes),
            dict(config),
            tuple(functions),
            held_out,
        )

    @property
    def long_context(self) -> bool:
        return "long_context" in self.category or "composite" in self.category

    def tools(self, turn: int) -> list[dict[str, Any]]:
        """The OpenAI tool specs offered in ``turn`` (held-out functions from their turn on)."""
        docs = list(self.functions)
        for start, added in sorted(self.held_out.items()):
            if start <= turn:
                docs.extend(added)
        return openai_tools(docs)

    def messages(self, turn: int) -> list[dict[str, Any]]:
        """What the user says in ``turn`` (BFCL's prompt when the turn only adds functions)."""
        if turn in self.held_out:
            return [{"role": "user", "content": ADDITIONAL_FUNCTION_PROMPT}]
        return [dict(m) for m in self.turns[turn]]

    def question_row(self) -> dict[str, Any]:
        """What the checker reads of the entry (``id``, ``involved_classes``, ``initial_config``)."""
        return {
            "id": self.id,
            "involved_classes": list(self.involved_classes),
            "initial_config": copy.deepcopy(self.initial_config),
        }


def _held_out(
    missed: Any, functions: list[dict[str, Any]]
) -> dict[int, tuple[dict[str, Any], ...]]:
    """BFCL's ``missed_function`` ({turn: [names]}): those docs, taken out of ``functions``."""
    if missed is None:
        return {}
    if not isinstance(missed, Mapping):
        raise ConfigError(
            f"expected {{turn: [function names]}}, got {type(missed).__name__}",
            field="missed_function",
        )
    out: dict[int, tuple[dict[str, Any], ...]] = {}
    for turn, names in missed.items():
        if not str(turn).isdigit() or not isinstance(names, list):
            raise ConfigError("expected {turn: [function names]}", field=f"missed_function.{turn}")
        docs = []
        for name in names:
            found = next((d for d in functions if d.get("name") == name), None)
            if found is not None:  # BFCL moves each named doc out of the offered list
                functions.remove(found)
                docs.append(found)
        out[int(turn)] = tuple(docs)
    return out


def decode_step(step: Any) -> list[tuple[str, dict[str, Any]]] | None:
    """A step's calls as BFCL's ``convert_to_function_call`` reads them; None ends the turn.

    A step that is text, empty, or whose arguments are not a JSON object is
    not decodable: BFCL proceeds to the next turn.
    """
    if not isinstance(step, list) or not step:
        return None
    calls: list[tuple[str, dict[str, Any]]] = []
    for item in step:
        if not isinstance(item, Mapping):
            return None
        for name, arguments in item.items():
            if isinstance(arguments, str):
                try:
                    arguments = json.loads(arguments)
                except ValueError:
                    return None
            if not isinstance(arguments, dict):
                return None
            calls.append((str(name), arguments))
    return calls or None


def ground_truth(entry: LiveEntry) -> tuple[list[list[str]] | None, str | None]:
    """(the entry's ground truth from the installed bfcl-eval, or None with why)."""
    filename = f"BFCL_v4_{entry.category}.json"
    answer = package_data(filename, True).get(entry.id)
    question = {**entry.question_row(), "question": [list(t) for t in entry.turns]}
    why = version_mismatch(filename, question, answer or {})
    if why is not None or answer is None:
        return None, why or f"no ground truth for {entry.id}"
    truth = answer.get("ground_truth")
    if not isinstance(truth, list):
        return None, f"the ground truth of {entry.id} is not a list of turns"
    return truth, None


class BfclEnvironment:
    """The environment protocol over one BFCL entry's simulated API instances.

    ``reset(entry)`` starts fresh instances for an entry (a question row or a
    :class:`LiveEntry`; None: the entry given at construction). A call answers
    what BFCL's execution answers, as text; an answer BFCL marks
    ``Error during execution:`` is an error result with that same text.
    ``state()`` is each class's public attributes (what BFCL's checker compares).
    """

    def __init__(self, entry: LiveEntry | None = None) -> None:
        self.entry = entry
        self._apis: BfclApis | None = None

    def tool_specs(self) -> list[dict[str, Any]]:
        """The entry's tools (all its turns'); without an entry, every multi-turn class's."""
        if self.entry is None:
            return openai_tools([doc for name in MULTI_TURN_CLASSES for doc in class_docs(name)])
        return self.entry.tools(len(self.entry.turns))

    def reset(self, initial_state: Any = None) -> None:
        if isinstance(initial_state, LiveEntry):
            self.entry = initial_state
        elif isinstance(initial_state, Mapping):
            self.entry = LiveEntry.from_row(initial_state)
        elif initial_state is not None:
            raise ConfigError(
                f"a BFCL environment resets to an entry (a question row), got "
                f"{type(initial_state).__name__}",
                field="metadata.environment.initial_state",
            )
        if self.entry is None:
            raise ConfigError(
                "a BFCL environment needs an entry: config entry: ID, or a row of a "
                "multi-turn question file",
                field="environment.config.entry",
            )
        self._apis = BfclApis(
            self.entry.involved_classes,
            self.entry.initial_config,
            long_context=self.entry.long_context,
        )

    def _live(self) -> BfclApis:
        if self._apis is None:
            self.reset()
        assert self._apis is not None  # reset() sets it or raises
        return self._apis

    def call(self, name: str, arguments: dict[str, Any]) -> CallOutcome:
        text = self._live().execute(name, arguments)
        if text.startswith(_ERROR_PREFIX):
            return CallOutcome(result=text, is_error=True)
        return CallOutcome(result=text)

    def state(self) -> dict[str, dict[str, Any]]:
        return {
            name: {k: v for k, v in vars(instance).items() if not k.startswith("_")}
            for name, instance in self._live().instances.items()
        }


@dataclass(slots=True)
class LiveResult:
    """One entry's steps per turn as BFCL's result line records them."""

    entry_id: str
    turns: list[list[Any]] = field(default_factory=list)
    latency: list[list[float]] = field(default_factory=list)
    input_tokens: list[list[int]] = field(default_factory=list)
    output_tokens: list[list[int]] = field(default_factory=list)
    force_quit: bool = False

    def start_turn(self) -> None:
        for part in (self.turns, self.latency, self.input_tokens, self.output_tokens):
            part.append([])

    def step(self, message: Mapping[str, Any], usage: Any, seconds: float) -> Any:
        """Record one model reply as BFCL's step (its calls, else its text); return the step."""
        calls = message.get("tool_calls")
        functions = [c.get("function") if isinstance(c, Mapping) else None for c in calls or ()]
        named = [f for f in functions if isinstance(f, Mapping)]
        if named and len(named) == len(functions):
            # BFCL's OpenAI handler: {name: arguments}, the arguments as the model sent them
            recorded: Any = [{str(f.get("name")): f.get("arguments")} for f in named]
        else:
            recorded = message.get("content")
        self.turns[-1].append(recorded)
        self.latency[-1].append(round(seconds, 6))
        tokens = usage if isinstance(usage, Mapping) else {}
        self.input_tokens[-1].append(_count(tokens.get("prompt_tokens")))
        self.output_tokens[-1].append(_count(tokens.get("completion_tokens")))
        return recorded

    def line(self) -> dict[str, Any]:
        """BFCL's result line (``id``, ``result``, token counts and latency per turn and step)."""
        return {
            "id": self.entry_id,
            "result": self.turns,
            "input_token_count": self.input_tokens,
            "output_token_count": self.output_tokens,
            "latency": self.latency,
        }


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
