"""Every error tooleval raises on purpose derives from one base.

The tree is kept shallow so ``except ToolEvalError`` is always enough::

    ToolEvalError                 base; carries optional context (row, field, ...)
    ├── InputError                a value the user gave is malformed or missing
    │   ├── FormatError           a foreign conversation format cannot be read
    │   ├── DatasetError          a dataset file, column or cell is unusable
    │   ├── NestingTooDeep        JSON nested deeper than tooleval reads
    │   └── BodyError             an HTTP request body the OTLP receiver refuses (status)
    ├── BfclDecodeError           BFCL's decoder refuses a model's text (also a ValueError)
    │   └── UndecodableStep       a multi-turn step BFCL skips as undecodable
    ├── SearchBudgetExceeded      a row's partial-order pairing ran out of search steps
    ├── ConfigError               a plan, option or metric parameter is wrong
    ├── ConnectorError            the agent under test could not be called
    │   └── UnreadableBody        a 2xx reply whose body cannot be read
    ├── EpisodeRefused            a served tool request binds no live episode (status)
    ├── MissingExtraError         an optional dependency is missing: names the extra (an ImportError)
    ├── JudgeError                an LLM judge is missing or failed
    │   └── JudgeTimeout          no complete reply within the timeout (also a TimeoutError)
    └── StoreError                the run store cannot be opened or read
        └── RunBusyError          another live process works this run

The modules that raise them re-export them under their former import paths
(``tooleval.formats.json_limits.NestingTooDeep``,
``tooleval.matching.partial_order.SearchBudgetExceeded``,
``tooleval.store.leases.RunBusyError``, ``tooleval.connectors.retry.UnreadableBody``,
``tooleval.monitor.serve.BodyError``, ``tooleval.benchmarks.bfcl.decode_python.BfclDecodeError``,
``tooleval.llm.openai_judge.JudgeTimeout``).

Each error names where the problem is (``row``, ``field``, ``path``, ``status``)
and what was expected, so the message alone tells the user what to do next.

>>> err = FormatError("expected a list", field="messages[2].tool_calls", row=7)
>>> str(err)
'row 7, field messages[2].tool_calls: expected a list'
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = [
    "BfclDecodeError",
    "BodyError",
    "ConfigError",
    "ConnectorError",
    "DatasetError",
    "EpisodeRefused",
    "FormatError",
    "InputError",
    "JudgeError",
    "JudgeTimeout",
    "MissingExtraError",
    "NestingTooDeep",
    "RunBusyError",
    "SearchBudgetExceeded",
    "StoreError",
    "ToolEvalError",
    "UndecodableStep",
    "UnreadableBody",
    "did_you_mean",
]

#: BFCL's label for text its decoder raises on (``BfclDecodeError.error_type``).
BFCL_DECODER_FAILED = "ast_decoder:decoder_failed"


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


class JudgeTimeout(JudgeError, TimeoutError):
    """A judge request that did not complete within the attempt's ``timeout`` (retried)."""


class MissingExtraError(ToolEvalError, ImportError):
    """An optional dependency is not installed; the message names the extra to install."""


class StoreError(ToolEvalError):
    """The run store cannot be opened, migrated or read."""


class NestingTooDeep(InputError):
    """JSON nested deeper than tooleval reads (``tooleval.formats.json_limits.MAX_DEPTH``)."""


class BodyError(InputError):
    """A request body the OTLP receiver refuses, with the HTTP ``status`` it answers.

    >>> BodyError(413, "body too large").status
    413
    """

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class EpisodeRefused(ToolEvalError):
    """A served request whose token binds no live episode; ``status`` is the HTTP answer.

    >>> EpisodeRefused("no episode is bound to this token", 404).status
    404
    """

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class BfclDecodeError(ToolEvalError, ValueError):
    """BFCL's decoder would raise on this text, or its output is not a list of calls.

    ``error_type`` is BFCL's label (``ast_decoder:decoder_failed`` or
    ``ast_decoder:decoder_wrong_output_format``). Also a ``ValueError``, as
    the decoders it mirrors raise one.
    """

    def __init__(self, message: str, error_type: str = BFCL_DECODER_FAILED) -> None:
        super().__init__(message)
        self.error_type = error_type


class UndecodableStep(BfclDecodeError):
    """A BFCL multi-turn step its decoder would fail on (BFCL skips the step)."""


class SearchBudgetExceeded(ToolEvalError):
    """A row's partial-order pairing needed more than its budget of search steps.

    ``reason`` is the text recorded on the unscored result.
    """

    def __init__(self, reason: str, **context: object) -> None:
        super().__init__(reason, **context)
        self.reason = reason


class UnreadableBody(ConnectorError):
    """A 2xx reply whose body cannot be read (retried when ``retry.invalid_body``)."""

    def after(self, tally: Any) -> ConnectorError:
        """The final error, saying how many attempts were made and why they were retried.

        ``tally`` is the connector's ``RetryTally`` (``attempts``, ``http``,
        ``body`` and ``counts()``).
        """
        noun = "attempt" if tally.attempts == 1 else "attempts"
        why = []
        if tally.http:
            why.append(f"{tally.http} retried for HTTP errors")
        if tally.body:
            why.append(f"{tally.body} retried for an unreadable body")
        detail = f" ({'; '.join(why)})" if why else ""
        err = ConnectorError(
            f"{self.message} [after {tally.attempts} {noun}{detail}]", **self.context
        )
        err.retries = tally.counts()  # type: ignore[attr-defined]
        return err


class RunBusyError(StoreError):
    """Another live process works this run."""


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the known name closest to ``word``, or ``""``.

    The one spelling hint of every "unknown name" message (metrics, options,
    plan and connector keys).

    >>> did_you_mean("tool_corectness", ["tool_correctness", "tool_call_f1"])
    " (did you mean 'tool_correctness'?)"
    >>> did_you_mean("zzz", ["tool_correctness"])
    ''
    """
    import difflib  # only when a message is being written

    close = difflib.get_close_matches(str(word), sorted(set(known)), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""
