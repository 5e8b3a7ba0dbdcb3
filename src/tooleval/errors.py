"""Every error tooleval raises on purpose derives from one base.

The tree is kept shallow so ``except ToolEvalError`` is always enough::

    ToolEvalError                 base; carries optional context (row, field, ...)
    ├── InputError                a value the user gave is malformed or missing
    │   ├── FormatError           a foreign conversation format cannot be read
    │   └── DatasetError          a dataset file, column or cell is unusable
    ├── ConfigError               a plan, option or metric parameter is wrong
    ├── ConnectorError            the agent under test could not be called
    ├── JudgeError                an LLM judge is missing or failed
    └── StoreError                the run store cannot be opened or read

Each error names where the problem is (``row``, ``field``, ``path``, ``status``)
and what was expected, so the message alone tells the user what to do next.

>>> err = FormatError("expected a list", field="messages[2].tool_calls", row=7)
>>> str(err)
'row 7, field messages[2].tool_calls: expected a list'
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ConfigError",
    "ConnectorError",
    "DatasetError",
    "FormatError",
    "InputError",
    "JudgeError",
    "StoreError",
    "ToolEvalError",
]


# Where an error happened reads most naturally from the outside in.
_CONTEXT_ORDER = {"file": 0, "row": 1, "column": 2, "field": 3, "path": 4, "status": 5}


class ToolEvalError(Exception):
    """Base of every error tooleval raises on purpose.

    Context keywords (``row``, ``field``, ``path``, ``status`` and any other)
    are kept on ``self.context`` and prefixed to the message.
    """

    def __init__(self, message: str, **context: Any) -> None:
        self.message = message
        self.context = {k: v for k, v in context.items() if v is not None}
        super().__init__(message)

    def __str__(self) -> str:
        keys = sorted(self.context, key=lambda k: (_CONTEXT_ORDER.get(k, len(_CONTEXT_ORDER)), k))
        where = ", ".join(f"{k} {self.context[k]}" for k in keys)
        return f"{where}: {self.message}" if where else self.message

    @property
    def row(self) -> Any:
        return self.context.get("row")

    @property
    def field(self) -> Any:
        return self.context.get("field")

    def with_context(self, **context: Any) -> ToolEvalError:
        """Return the same error with more context (outer layers add the row)."""
        merged = {**{k: v for k, v in context.items() if v is not None}, **self.context}
        err = type(self).__new__(type(self))
        ToolEvalError.__init__(err, self.message, **merged)
        return err


class InputError(ToolEvalError):
    """A value the user gave is malformed or missing."""


class FormatError(InputError):
    """A conversation or tool call in a foreign format cannot be read."""


class DatasetError(InputError):
    """A dataset file, column binding or cell cannot be used."""


class ConfigError(ToolEvalError):
    """A plan file, CLI option or metric parameter is invalid."""


class ConnectorError(ToolEvalError):
    """The agent under test could not be called or its response not read."""


class JudgeError(ToolEvalError):
    """No judge is configured, or the judge endpoint failed."""


class StoreError(ToolEvalError):
    """The run store cannot be opened, migrated or read."""
