"""Column bindings: which file column feeds which Sample field.

A column named exactly like a field (``expected_tools``, ``input``, ...)
binds without asking; ``bind={"expected_tools": "my_column"}`` binds any
other. :func:`suggest_column` finds the likely column when a needed field is
unbound, by name and by what the cells look like.

>>> resolve_bindings(["question", "expected_tools"], {"input": "question"})
{'input': 'question', 'expected_tools': 'expected_tools'}
>>> parse_bind_options(["expected_tools=tools", "category = intent"])
{'expected_tools': 'tools', 'category': 'intent'}

One field, one column: a field bound twice is refused (never the last kept),
and so is one column bound to both the reference (``expected_tools``) and the
agent's calls (``tools_called``), which would score the calls against
themselves. A suggestion for the reference never names the column that holds
the agent's calls.

>>> parse_bind_options(["expected_tools=gold", "tools_called=gold"])
Traceback (most recent call last):
tooleval.errors.DatasetError: field bind: column 'gold' is bound to expected_tools and to tools_called: the reference and the agent's calls must come from different columns
"""

from __future__ import annotations

import difflib
import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tooleval.errors import ConfigError, DatasetError, ToolEvalError
from tooleval.formats.rows import ROW_FIELDS

__all__ = [
    "bind_mapping",
    "BINDABLE",
    "bind_option",
    "check_crossing",
    "parse_bind_options",
    "resolve_bindings",
    "suggest_column",
]

#: Sample fields a column can be bound to: the canonical row's keys
#: (``expected_output`` is an alias of ``reference``).
BINDABLE = ROW_FIELDS

# Words in a column name that hint at a field, strongest first.
_NAME_HINTS = {
    "expected_tools": (
        ("expected_tool", 5),
        ("tool", 3),
        ("expect", 2),
        ("call", 2),
        ("gold", 1),
        ("truth", 1),
        ("label", 1),
        ("action", 1),
        ("function", 1),
    ),
    "input": (
        ("input", 4),
        ("question", 3),
        ("query", 3),
        ("prompt", 3),
        ("request", 2),
        ("message", 1),
        ("text", 1),
    ),
    "reference": (("reference", 4), ("answer", 3), ("expected_output", 4), ("ground", 2)),
    "tools_called": (("tools_called", 5), ("called", 3), ("actual", 2), ("tool", 1)),
    "category": (("category", 4), ("intent", 3), ("type", 1), ("group", 1)),
}


def bind_option(field: str, column: str) -> str:
    """The ``--bind`` option that binds ``column``, quoted for a shell when it must be.

    >>> bind_option("input", "question"), bind_option("input", "my question")
    ('--bind input=question', "--bind 'input=my question'")
    """
    return f"--bind {shlex.quote(f'{field}={column}')}"


#: Fields that hold the reference calls, and the field that holds the agent's calls.
_REFERENCE_FIELDS = ("expected_tools",)
_CALLS_FIELD = "tools_called"


def parse_bind_options(options: Iterable[str] | None) -> dict[str, str]:
    """Read CLI ``--bind FIELD=COLUMN`` options into a mapping (a field given twice is refused)."""
    out: dict[str, str] = {}
    for option in options or ():
        field, sep, column = option.partition("=")
        if not sep or not field.strip() or not column.strip():
            raise DatasetError(
                f"expected --bind FIELD=COLUMN (e.g. expected_tools=my_column), got {option!r}",
                field="bind",
            )
        field, column = field.strip(), column.strip()
        if field in out:
            raise DatasetError(
                f"--bind {field} given twice ({field}={out[field]}, then {field}={column}); "
                "a field reads one column: give it once",
                field="bind",
            )
        out[field] = column
    check_crossing(out)
    return out


def check_crossing(bindings: Mapping[str, str], *, file: str | None = None) -> None:
    """Refuse one column bound to both the reference and the agent's calls.

    Unless ``tools_called`` is bound to another column, the agent's calls are
    read from the column named ``tools_called``.
    """
    calls = bindings.get(_CALLS_FIELD, _CALLS_FIELD)
    for field in _REFERENCE_FIELDS:
        if bindings.get(field) == calls:
            raise DatasetError(
                f"column {calls!r} is bound to {field} and to {_CALLS_FIELD}: the reference "
                "and the agent's calls must come from different columns"
                + ("" if _CALLS_FIELD in bindings else f" (bind {_CALLS_FIELD} to another column)"),
                file=file,
                field="bind",
            )


def bind_mapping(bind: Any, *, field: str = "bind") -> dict[str, str]:
    """``bind`` as a field -> column dict, checked before any row is read (None: no binding).

    >>> bind_mapping({"expected_tools": "gold"})
    {'expected_tools': 'gold'}
    >>> bind_mapping(["gold"])
    Traceback (most recent call last):
    ...
    tooleval.errors.ConfigError: field bind: expected a mapping of field -> column ({'expected_tools': 'gold'}), got list
    """
    if bind is None:
        return {}
    if not isinstance(bind, Mapping):
        raise ConfigError(
            "expected a mapping of field -> column ({'expected_tools': 'gold'}), got "
            f"{type(bind).__name__}",
            field=field,
        )
    for name, column in bind.items():
        if not isinstance(name, str) or not isinstance(column, str) or not column:
            raise ConfigError(
                f"expected a column name (text) for field {name!r}, got {column!r}",
                field=f"{field}.{name}",
            )
    return dict(bind)


def resolve_bindings(
    columns: Sequence[str], bind: Mapping[str, str] | None = None, *, file: str | None = None
) -> dict[str, str]:
    """Field -> column: explicit ``bind`` first, then columns named like a field."""
    bindings: dict[str, str] = {}
    for field, column in bind_mapping(bind).items():
        if field not in BINDABLE:
            hint = difflib.get_close_matches(field, BINDABLE, n=1)
            raise DatasetError(
                f"cannot bind unknown field {field!r}; fields are {list(BINDABLE)}"
                + (f" (did you mean {hint[0]!r}?)" if hint else ""),
                file=file,
                field=f"bind.{field}",
            )
        if column not in columns:
            hint = difflib.get_close_matches(str(column), list(columns), n=1)
            raise DatasetError(
                f"bind {field}={column}: the file has no column {column!r}; its columns are "
                f"{list(columns)}" + (f" (did you mean {hint[0]!r}?)" if hint else ""),
                file=file,
                field=f"bind.{field}",
            )
        bindings[field] = column
    taken = set(bindings.values())
    for column in columns:
        if column in BINDABLE and column not in bindings and column not in taken:
            if column == "expected_output" and "reference" in bindings:
                continue
            if column == "reference" and "expected_output" in bindings:
                continue
            bindings[column] = column
    check_crossing(bindings, file=file)
    return bindings


def _looks_like(field: str, values: list[Any]) -> float:
    """Fraction of non-empty cells that parse as this field's shape."""
    cells = [v for v in values if v not in (None, "")]
    if not cells:
        return 0.0
    if field in ("expected_tools", "tools_called"):
        from tooleval.formats.expected import parse_expected_tools

        good = 0
        for value in cells:
            if isinstance(value, str) and not any(ch in value for ch in "[{,_."):
                continue  # one plain word (a label like "billing") is weak evidence
            try:
                parse_expected_tools(value)
            except (ToolEvalError, ValueError, TypeError):
                continue
            good += 1
        return good / len(cells)
    if field == "input":
        return sum(1 for v in cells if isinstance(v, str) and len(v.split()) > 1) / len(cells)
    return 0.0


def suggest_column(
    field: str,
    columns: Sequence[str],
    rows: Sequence[Mapping[str, Any]],
    *,
    exclude: Iterable[str] = (),
) -> str | None:
    """The unbound column most likely meant for ``field`` (or None).

    For the reference (``expected_tools``) the column that holds the agent's
    calls is never proposed: a column named ``tools_called``, and, when
    several columns hold tool lists, the one whose name says calls rather
    than reference (``tools`` beside ``gold``).

    >>> rows = [{"tools": '["a"]', "gold": '["a"]'}]
    >>> suggest_column("expected_tools", ["id", "tools", "gold"], rows)
    'gold'
    """
    excluded = set(exclude)
    if field in _REFERENCE_FIELDS:
        excluded |= {_CALLS_FIELD} | set(_calls_columns(columns, rows, excluded))
    best: str | None = None
    best_score = 0.0
    sample = list(rows[:50])
    for column in columns:
        if column in excluded:
            continue
        name = re.sub(r"[\s\-]+", "_", column.lower())
        score: float = max((w for hint, w in _NAME_HINTS.get(field, ()) if hint in name), default=0)
        shape = _looks_like(field, [r.get(column) for r in sample])
        if field in ("expected_tools", "tools_called") and shape < 0.5:
            score = score / 2  # a name hint alone is weak when the cells are not tool lists
        score += 3 * shape
        if score > best_score:
            best, best_score = column, score
    return best if best_score >= 2 else None


# Words in a column name that say it holds the reference, not what the agent did.
_REFERENCE_WORDS = ("expect", "gold", "truth", "label", "reference", "ground", "target", "answer")


def _calls_columns(
    columns: Sequence[str], rows: Sequence[Mapping[str, Any]], excluded: set[str]
) -> list[str]:
    """Columns that hold tool lists and whose names do not say reference, when another does."""
    sample = list(rows[:50])
    lists = [
        c
        for c in columns
        if c not in excluded and _looks_like("tools_called", [r.get(c) for r in sample]) >= 0.5
    ]

    def says_reference(column: str) -> bool:
        name = column.lower()
        return any(word in name for word in _REFERENCE_WORDS)

    references = [c for c in lists if says_reference(c)]
    if not references:
        return []
    return [c for c in lists if not says_reference(c)]
