"""FunctionGemma's call syntax, read as BFCL's ``FunctionGemmaHandler`` reads it.

FunctionGemma prints ``<start_function_call>call:NAME{key:value,...}<end_function_call>``
with strings between ``<escape>`` tokens. BFCL (``bfcl-eval`` 2026.3.23)
reads the arguments with a forgiving scanner rather than a grammar, and
:func:`decode_functiongemma` re-implements what that scanner yields,
including its quirks, so that scores match:

* every block whose text (stripped) starts with ``call:`` is one call; the
  name runs to the first ``{`` (no ``{``: no arguments);
* a bare value is ``null``/``true``/``false``, else an ``int``, else a
  ``float`` (Python's own ``int()``/``float()``: ``1_000``, ``nan``,
  ``inf`` included), else the text; an ``<escape>`` string is kept as is
  (unclosed: the rest of the text, the token included);
* a key is the text before ``:`` read as a bare value and written back with
  ``str()`` (``true:`` gives the key ``"True"``; ``null:`` gives no key);
  a value without a key is dropped;
* ``}`` and ``]`` close the innermost open container whatever it is; ``}``
  also forgets the innermost pending key slot, ``]`` does not;
* the arguments are the first value if it is an object, else ``{}``.

It never fails on text (BFCL's does not either).

>>> decode_functiongemma("<start_function_call>call:get_weather{city:<escape>Paris<escape>,"
...                      "days:3}<end_function_call>")
[{'get_weather': {'city': 'Paris', 'days': 3}}]
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["decode_functiongemma", "read_arguments"]

_BLOCK = re.compile(r"<start_function_call>(.*?)<end_function_call>", re.DOTALL)
_ESCAPE = "<escape>"
_CALL = "call:"
_STRUCTURE = frozenset("{[:]},")


def decode_functiongemma(text: str) -> list[dict[str, dict[str, Any]]]:
    """``[{name: {args}}]`` for every ``call:`` block in a FunctionGemma answer."""
    calls: list[dict[str, dict[str, Any]]] = []
    for block in _BLOCK.findall(text):
        block = block.strip()
        if not block.startswith(_CALL):
            continue
        brace = block.find("{")
        if brace < 0:
            calls.append({block[len(_CALL) :].strip(): {}})
        else:
            calls.append({block[len(_CALL) : brace].strip(): read_arguments(block[brace:])})
    return calls


def _bare(text: str) -> Any:
    if text in ("null", "true", "false"):
        return {"null": None, "true": True, "false": False}[text]
    for number in (int, float):
        try:
            return number(text)
        except ValueError:
            pass
    return text


class _Scanner:
    """Open containers, the key slot of each ``{``, the pending text and key."""

    def __init__(self) -> None:
        self.top: list[Any] = []
        self.open: list[Any] = [self.top]
        self.key_slots: list[str | None] = []
        self.pending_text: list[str] = []
        self.loose: Any = None  # a value read where a key was expected

    def put(self, value: Any) -> None:
        into = self.open[-1]
        if isinstance(into, list):
            into.append(value)
            return
        key = self.key_slots[-1] if self.key_slots else None
        if key is None:
            self.loose = value
        else:
            into[key] = value
            self.key_slots[-1] = None

    def flush(self) -> None:
        raw = "".join(self.pending_text).strip()
        self.pending_text.clear()
        if raw:
            self.put(_bare(raw))

    def structure(self, char: str) -> None:
        if char in "{[":
            container: Any = {} if char == "{" else []
            self.put(container)
            self.open.append(container)
            if char == "{":
                self.key_slots.append(None)
        elif char in "}]":
            if len(self.open) > 1:
                self.open.pop()
                if char == "}" and self.key_slots:
                    self.key_slots.pop()
        elif char == ":":
            # The key text was just flushed as a value, so it sits in ``loose``.
            if self.loose is not None and isinstance(self.open[-1], dict) and self.key_slots:
                self.key_slots[-1] = str(self.loose)
            self.loose = None
            return
        self.loose = None


def read_arguments(text: str) -> dict[str, Any]:
    """The arguments object BFCL's FunctionGemma scanner reads from ``text``.

    >>> read_arguments("{a:[1,2.5,<escape>x,y<escape>],b:{c:true}}")
    {'a': [1, 2.5, 'x,y'], 'b': {'c': True}}
    """
    scan = _Scanner()
    at, end = 0, len(text)
    while at < end:
        if text.startswith(_ESCAPE, at):
            close = text.find(_ESCAPE, at + len(_ESCAPE))
            if close < 0:
                value, at = text[at:], end
            else:
                value, at = text[at + len(_ESCAPE) : close], close + len(_ESCAPE)
            scan.flush()
            scan.put(value)
            continue
        char = text[at]
        if char in _STRUCTURE:
            scan.flush()
            scan.structure(char)
        else:
            scan.pending_text.append(char)
        at += 1
    scan.flush()
    first = scan.top[0] if scan.top else None
    return first if isinstance(first, dict) else {}
