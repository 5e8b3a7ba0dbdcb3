"""Text from agents made safe to print, to put in XML, or to show a human.

An agent's error body can hold ANSI escapes (colours, cursor moves, OSC
hyperlinks), NUL and other control characters that XML 1.0 forbids, or
bidirectional overrides that make ``refund‮gnp.exe`` read as something else.
Three views of the same text:

- :func:`visible`: ANSI sequences removed, every other control character and
  every bidi control shown as a visible escape (``\\x07``, ``<U+202E>``).
  For terminals, JUnit XML, CSV and JSON meant for humans.
- :func:`xml_safe`: :func:`visible`, and guaranteed to hold only characters
  XML 1.0 allows (so ElementTree, junitparser, GitLab and Jenkins read it).
- :func:`strip_ansi`: only the ANSI sequences removed.

>>> visible("\\x1b[31mHTTP 500\\x1b[0m: boom\\x07")
'HTTP 500: boom\\\\x07'
>>> visible("refund\\u202egnp.exe")
'refund<U+202E>gnp.exe'
>>> xml_safe("a\\x00b")
'a\\\\x00b'
"""

from __future__ import annotations

import re

__all__ = ["BIDI_CONTROLS", "strip_ansi", "visible", "xml_safe"]

# CSI (ESC [ ... final), OSC (ESC ] ... BEL or ESC \), other two-byte ESC
# sequences, and the 8-bit CSI/OSC forms.
_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"
    r"|\x1b[ -/]*[0-~]"
    r"|\x9b[0-?]*[ -/]*[@-~]"
    r"|\x9d[^\x07\x9c]*[\x07\x9c]?"
)

#: Characters that reorder text on screen: shown, never applied.
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)

# Control characters other than tab, newline, carriage return; DEL and C1;
# lone surrogates; the non-characters XML forbids; the bidi controls.
_UNSAFE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff"
    + "".join(sorted(BIDI_CONTROLS))
    + "]"
)


def strip_ansi(text: str) -> str:
    """``text`` without ANSI escape sequences.

    >>> strip_ansi("\\x1b[1mbold\\x1b[0m")
    'bold'
    """
    return _ANSI.sub("", text)


def _shown(match: re.Match[str]) -> str:
    ch = match.group(0)
    if ch in BIDI_CONTROLS:
        return f"<U+{ord(ch):04X}>"
    code = ord(ch)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` with ANSI removed and every other control shown as an escape."""
    if not isinstance(text, str):
        text = str(text)
    return _UNSAFE.sub(_shown, _ANSI.sub("", text))


def xml_safe(text: str) -> str:
    """``text`` holding only characters XML 1.0 allows (see :func:`visible`)."""
    return visible(text)
