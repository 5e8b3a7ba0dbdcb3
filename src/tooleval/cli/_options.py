"""Options given twice: combined or refused with one line, never silently replaced.

argparse keeps the last value of an option given twice (``-o a -o b`` writes
``b``), which hides a mistake. :func:`refuse_repeats` makes every single-value
option of a parser refuse a second value with a one-line error (exit 2);
flags (``--table``) given twice mean the same thing and repeatable options
(``--metric``, ``--option``) combine, each command checking what a repeat
inside them means (the same ``--option`` key twice is refused).

>>> import argparse, contextlib, io
>>> parser = argparse.ArgumentParser(prog="tooleval demo")
>>> _ = parser.add_argument("--output")
>>> refuse_repeats(parser)
>>> parser.parse_args(["--output", "a"]).output
'a'
>>> err = io.StringIO()
>>> with contextlib.redirect_stderr(err), contextlib.suppress(SystemExit):
...     parser.parse_args(["--output", "a", "--output", "b"])
>>> err.getvalue()
"tooleval demo: error: --output given twice ('a', then 'b'); give it once\\n"
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from typing import Any

__all__ = ["refuse_repeats"]

_SEEN = "_options_given"  # namespace attribute: the dests set so far by this parse


class _StoreOnce(argparse._StoreAction):
    """A store action that refuses a second value for its option."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        seen: dict[str, Any] = namespace.__dict__.setdefault(_SEEN, {})
        if self.dest in seen:
            parser.exit(
                2,
                f"{parser.prog}: error: {option_string} given twice "
                f"({seen[self.dest]!r}, then {values!r}); give it once\n",
            )
        seen[self.dest] = values
        super().__call__(parser, namespace, values, option_string)


def finite_float(text: str) -> float:
    """A number option's value: ``nan`` and ``inf`` are refused, not compared with.

    >>> finite_float("0.8")
    0.8
    >>> finite_float("nan")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: expected a finite number, got 'nan'
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def refuse_repeats(parser: argparse.ArgumentParser) -> None:
    """Make each single-value option of ``parser`` (added so far) refuse a second value.

    Every ``type=float`` option also refuses ``nan`` and ``inf`` (:func:`finite_float`):
    a floor of ``nan`` would pass every gate, a limit of ``inf`` none.
    """
    for action in parser._actions:
        if type(action) is argparse._StoreAction and action.option_strings:
            action.__class__ = _StoreOnce
        if action.type is float:
            action.type = finite_float
