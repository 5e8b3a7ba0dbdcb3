"""The preflight: everything a run can check before its first agent call.

A mistake that would make every row fail (or, worse, score) the same way is
found here and stops the run with exit 2 and a line saying how to fix it;
``tooleval run PLAN --dry-run`` runs only this. Checked:

- every ``${VAR}`` the connector (or judge) refers to is set, and an
  ``api_key_env`` names a variable that is set;
- the request renders for every row: each ``{{...}}`` placeholder of the
  body or query template names a field or column the row has;
- the prompt is non-empty text for every readable row (a dataset whose
  prompt column is ``question`` and no ``bind: {input: question}`` sends
  empty prompts);
- every metric that reads the agent's tool calls has a source for them: a
  ``tools_called``/``tool_calls`` response path on an HTTP connector (or a
  ``tools_called`` column); likewise an ``output`` path for output metrics;
- row ids are unique (results are matched across runs by id);
- an ``openai`` connector without a ``tool_executor`` sees one turn only: a
  note (a warning in a run) says so, since a task whose second call needs
  the first one's result cannot be done in one turn.

>>> problem = Problem("connector.headers.Authorization", "environment variable T is not set",
...                   "export T=... before the run")
>>> str(problem)
'connector.headers.Authorization: environment variable T is not set; export T=... before the run'
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tooleval.errors import ConfigError, ToolEvalError

__all__ = ["PreflightReport", "Problem", "preflight", "single_turn_note"]

_SHOWN_ROWS = 5


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing that would spoil the run: where, what, how to fix it."""

    where: str
    what: str
    fix: str = ""

    def __str__(self) -> str:
        return f"{self.where}: {self.what}" + (f"; {self.fix}" if self.fix else "")


@dataclass(frozen=True, slots=True)
class PreflightReport:
    """What the preflight found; :meth:`raise_if_failed` turns problems into exit 2."""

    rows: int
    problems: tuple[Problem, ...] = ()
    notes: tuple[str, ...] = ()
    unreadable: int = 0  # rows that will be stored as error rows

    @property
    def ok(self) -> bool:
        return not self.problems

    def raise_if_failed(self) -> None:
        if not self.problems:
            return
        first = str(self.problems[0])
        more = len(self.problems) - 1
        tail = f" (and {more} more problem{'s' if more != 1 else ''}: --dry-run lists them)"
        from tooleval.textsafe import visible

        raise ConfigError(visible("preflight: " + first + (tail if more else "")))

    def lines(self) -> list[str]:
        """Every problem and note, one per line (what ``--dry-run`` prints)."""
        return [f"problem: {p}" for p in self.problems] + [f"note: {n}" for n in self.notes]


def _rows_text(numbers: Sequence[int]) -> str:
    shown = ", ".join(str(n) for n in numbers[:_SHOWN_ROWS])
    more = len(numbers) - _SHOWN_ROWS
    return f"row{'s' if len(numbers) != 1 else ''} {shown}" + (
        f" and {more} more" if more > 0 else ""
    )


def _env_names(value: Any, where: str) -> Iterable[tuple[str, str]]:
    from tooleval.connectors.template import env_references

    if isinstance(value, str):
        for name in env_references(value):
            yield where, name
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _env_names(item, f"{where}.{key}")
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            yield from _env_names(item, f"{where}[{i}]")


def _check_env(section: Mapping[str, Any] | None, where: str, environ: Mapping[str, str]):
    if not section:
        return
    for field, name in _env_names(dict(section), where):
        if name not in environ:
            yield Problem(
                field,
                f"environment variable {name} is not set (referenced as ${{{name}}})",
                f"export {name}=... before the run",
            )
    key_env = section.get("api_key_env")
    if isinstance(key_env, str) and key_env and key_env not in environ:
        yield Problem(
            f"{where}.api_key_env",
            f"environment variable {key_env} is not set",
            f"export {key_env}=... (or remove api_key_env for a server without keys)",
        )


def _check_templates(connector: Any, dataset: Any) -> Iterable[Problem]:
    templates: list[Any] = [
        t for t in (getattr(connector, "body", None), getattr(connector, "params", None))
    ]
    templates = [t for t in templates if t is not None and hasattr(t, "render")]
    if not templates:
        return
    failures: dict[str, tuple[str, list[int]]] = {}
    for row in dataset.rows:
        if row.error:
            continue
        for template in templates:
            try:
                template.render(row.sample)
            except ToolEvalError as exc:
                key = f"{template.field}|{exc.message}"
                failures.setdefault(key, (template.field, []))[1].append(row.number)
    for key, (field, numbers) in failures.items():
        message = key.split("|", 1)[1]
        missing_column = message.rsplit("row has no metadata.", 1)
        fix = "fix the placeholder or add the column to the dataset"
        if len(missing_column) == 2:
            column = missing_column[1].split(".")[0]
            if column not in dataset.columns:
                fix = (
                    f"the dataset has no column {column!r} (its columns are "
                    f"{list(dataset.columns)}); fix the placeholder or add the column"
                )
            else:
                fix = f"column {column!r} is empty in those rows"
        yield Problem(field, f"{message} ({_rows_text(numbers)})", fix)


def _uses_input(connector: Any) -> bool:
    """Does the request carry the row's prompt (``{{input}}``, or the whole sample)?"""
    body = getattr(connector, "body", None)
    params = getattr(connector, "params", None)
    placeholders = []
    for template in (body, params):
        if template is not None and hasattr(template, "placeholders"):
            placeholders.extend(template.placeholders())
    if body is not None and hasattr(body, "placeholders"):
        return any(p.split(".")[0] in ("input", "messages") for p in placeholders)
    # A python function given the whole sample or row may read its prompt anywhere.
    return getattr(connector, "argument", "input") == "input"


def _prompt(sample: Any) -> str:
    if isinstance(sample.input, str) and sample.input.strip():
        return sample.input
    if sample.messages:
        try:
            return sample.user_input() or ""
        except Exception:  # a malformed conversation is reported by the row itself
            return ""
    return ""


def _check_input(connector: Any, dataset: Any) -> Iterable[Problem]:
    from tooleval.datasets.binding import suggest_column

    if not _uses_input(connector):
        return
    empty = [
        row.number for row in dataset.rows if not row.error and not _prompt(row.sample).strip()
    ]
    if not empty:
        return
    if not dataset.is_bound("input"):
        guess = suggest_column(
            "input",
            dataset.columns,
            dataset.raw_values()[:50],
            exclude=set(dataset.bindings.values()),
        )
        fix = (
            f"no column is bound to input (the file's columns are {list(dataset.columns)}); "
            "bind the prompt column in the plan: dataset: {bind: {input: COLUMN}}"
        )
        if guess:
            fix += f"; the likely one is {guess!r} (bind: {{input: {guess}}})"
        yield Problem("dataset.bind.input", f"the prompt is empty in {_rows_text(empty)}", fix)
        return
    column = dataset.bindings.get("input") or dataset.bindings.get("messages") or "input"
    yield Problem(
        f"column {column}",
        f"the prompt is empty in {_rows_text(empty)}",
        "fill those cells or remove the rows (an empty prompt would be sent to the agent)",
    )


def _tool_call_source(connector: Any, dataset: Any) -> bool:
    if dataset.is_bound("tools_called"):
        return True
    mapping = getattr(connector, "mapping", None)
    paths = getattr(mapping, "paths", None)
    if paths is not None and getattr(connector, "url", None) is not None:
        return "tools_called" in paths or "tool_calls" in paths
    return True  # python/openai connectors report calls themselves (checked per row)


def _output_source(connector: Any) -> bool:
    mapping = getattr(connector, "mapping", None)
    paths = getattr(mapping, "paths", None)
    if not paths or getattr(connector, "url", None) is None:
        return True  # no paths: a text reply is the output; other connectors report it
    return "output" in paths


def _check_tool_source(connector: Any, dataset: Any, metrics: Sequence[Any]) -> Iterable[Problem]:
    needing = [m.spec.name for m in metrics if "tools_called" in (m.info.requires or ())]
    if needing and not _tool_call_source(connector, dataset):
        yield Problem(
            "connector.response",
            f"{', '.join(needing)} score the agent's tool calls, but the connector has no "
            "tools_called or tool_calls path, so every row would be unscored",
            "add connector: response: {tools_called: <JSONPath to the called tool names>} "
            "(`tooleval connector test PLAN` shows the agent's reply)",
        )
    needing = [m.spec.name for m in metrics if "output" in (m.info.requires or ())]
    if needing and not dataset.is_bound("output") and not _output_source(connector):
        yield Problem(
            "connector.response",
            f"{', '.join(needing)} read the agent's answer, but the connector's response "
            "paths have no output path, so every row would be unscored",
            "add connector: response: {output: <JSONPath to the answer text>}",
        )


def single_turn_note(connector: Any) -> str | None:
    """The note for an ``openai`` connector that cannot see more than one turn, or None."""
    if not hasattr(connector, "tool_executor") or connector.tool_executor is not None:
        return None
    if getattr(connector, "max_turns", 1) != 1:
        return None
    return (
        "connector: the openai connector has no tool_executor, so the agent sees one turn: "
        "its tool calls get no results, and a task whose next call needs a tool's answer "
        "(look up, then cancel) stops after the first calls; give connector.tool_executor "
        "(docs/connectors.md)"
    )


def _check_ids(dataset: Any) -> Iterable[Problem]:
    seen: dict[str, int] = {}
    repeated: dict[str, list[int]] = {}
    for row in dataset.rows:
        if row.row_id in seen:
            repeated.setdefault(row.row_id, [seen[row.row_id]]).append(row.number)
        else:
            seen[row.row_id] = row.number
    if not repeated:
        return
    shown = "; ".join(
        f"{row_id!r} in {_rows_text(numbers)}" for row_id, numbers in list(repeated.items())[:3]
    )
    more = len(repeated) - 3
    column = dataset.bindings.get("id", "id")
    yield Problem(
        f"column {column}",
        f"{len(repeated)} id{'s are' if len(repeated) != 1 else ' is'} used more than once: "
        + shown
        + (f" and {more} more" if more > 0 else ""),
        "give every row its own id (runs are compared row by row by id)",
    )


def preflight(
    plan: Any,
    dataset: Any,
    metrics: Sequence[Any],
    connector: Any,
    *,
    environ: Mapping[str, str] | None = None,
) -> PreflightReport:
    """Check ``plan`` against its loaded ``dataset``, resolved ``metrics`` and ``connector``."""
    environ = os.environ if environ is None else environ
    problems: list[Problem] = []
    if isinstance(plan.connector, Mapping) and plan.connector:
        problems += _check_env(plan.connector, "connector", environ)
    if isinstance(plan.judge, Mapping):
        problems += _check_env(plan.judge, "judge", environ)
    problems += _check_input(connector, dataset)
    problems += _check_templates(connector, dataset)
    problems += _check_tool_source(connector, dataset, metrics)
    problems += _check_ids(dataset)
    notes = [w for w in dataset.warnings if " is also used by row " not in w]
    single_turn = single_turn_note(connector)
    if single_turn:
        notes.append(single_turn)
    unreadable = [row.number for row in dataset.rows if row.error]
    if unreadable:
        notes.append(
            f"{len(unreadable)} rows cannot be read ({_rows_text(unreadable)}): they are stored "
            "as error rows and count against --max-error-rate"
        )
    return PreflightReport(
        len(dataset.rows), tuple(problems), tuple(dict.fromkeys(notes)), len(unreadable)
    )
