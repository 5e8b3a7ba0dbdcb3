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

And one for spreadsheets: :func:`csv_cell` makes a CSV cell that no
spreadsheet runs as a formula (every CSV export writes its cells with it).

>>> visible("\\x1b[31mHTTP 500\\x1b[0m: boom\\x07")
'HTTP 500: boom\\\\x07'
>>> visible("refund\\u202egnp.exe")
'refund<U+202E>gnp.exe'
>>> xml_safe("a\\x00b")
'a\\\\x00b'
>>> csv_cell("=HYPERLINK(1)"), csv_cell("-2+3"), csv_cell(-0.5), csv_cell(None)
("'=HYPERLINK(1)", "'-2+3", '-0.5', '')
"""

from __future__ import annotations

import re

__all__ = ["BIDI_CONTROLS", "FORMULA_STARTS", "csv_cell", "strip_ansi", "visible", "xml_safe"]

#: First characters that make a spreadsheet (Excel, LibreOffice, Sheets) read a
#: cell as a formula or a DDE command: = + - @, tab, CR, LF, and their
#: full-width forms, which Excel treats alike in East Asian locales.
FORMULA_STARTS = frozenset("=+-@\t\r\n\uff1d\uff0b\uff0d\uff20")


def csv_cell(value: object) -> str:
    """A CSV cell as text that no spreadsheet runs as a formula.

    Text starting with a formula character (see :data:`FORMULA_STARTS`), also
    after leading spaces, gets a ``'`` in front; numbers and booleans are
    written as they are (a number is never a formula); None is empty.
    """
    if value is None:
        return ""
    if isinstance(value, bool | int | float):
        return str(value)
    text = value if isinstance(value, str) else str(value)
    stripped = text.lstrip(" ")
    return "'" + text if stripped[:1] in FORMULA_STARTS and stripped else text


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
