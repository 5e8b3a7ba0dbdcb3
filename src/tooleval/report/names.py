"""Text that could mislead a reader, made visible: control and bidi characters, look-alike names.

Every text that reaches a page goes through :func:`visible_controls` (the
HTML builder calls it), so a tool name with U+202E (right-to-left override)
shows the override as ``⟨U+202E⟩`` instead of reversing what follows, and
terminal escapes or NULs show as their code points. Tool names are also
checked by :func:`name_warnings` for what makes two names look alike:
invisible characters (zero width space, joiners, BOM) and letters of several
scripts in one name (Latin ``a`` next to Cyrillic ``а``).

>>> visible_controls("refund\\u202egnp.exe")
'refund⟨U+202E⟩gnp.exe'
>>> name_warnings("issue_refund"), name_warnings("issue_r\\u0435fund")
([], ['mixed scripts: Cyrillic, Latin'])
>>> shown_name("look\\u200bup")
'look⟨U+200B⟩up'
"""

from __future__ import annotations

import unicodedata

__all__ = ["name_warnings", "shown_name", "visible_controls"]

_BIDI = [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
_CONTROLS = [c for c in range(0x20) if chr(c) not in "\t\n\r"] + list(range(0x7F, 0xA0))
_VISIBLE = {c: f"⟨U+{c:04X}⟩" for c in [*_CONTROLS, *_BIDI]}
# Invisible in a name (legitimate in running text: ZWJ builds emoji, ZWNJ Persian words).
_INVISIBLE = [
    0x00AD,
    0x034F,
    0x180E,
    *range(0x200B, 0x200E),
    0x2060,
    0x2061,
    0x2062,
    0x2063,
    0xFEFF,
]
_IN_NAMES = {**_VISIBLE, **{c: f"⟨U+{c:04X}⟩" for c in _INVISIBLE}}
_SCRIPTS = ("LATIN", "CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE", "FULLWIDTH")


def visible_controls(text: str) -> str:
    """``text`` with control and bidi-override characters shown as code points (``⟨U+202E⟩``)."""
    return text.translate(_VISIBLE) if not text.isascii() or not text.isprintable() else text


def shown_name(name: str) -> str:
    """A tool name as shown: controls, bidi and invisible characters as code points (``⟨U+200B⟩``)."""
    return name if name.isascii() and name.isprintable() else name.translate(_IN_NAMES)


def _script(char: str) -> str | None:
    try:
        word = unicodedata.name(char).split(" ", 1)[0]
    except ValueError:
        return None
    return word if word in _SCRIPTS else None


def name_warnings(name: str) -> list[str]:
    """Why ``name`` could pass for another name: invisible characters, mixed scripts.

    An empty list for plain names; pure ASCII names are never flagged.
    """
    if name.isascii():
        return []
    notes = []
    hidden = sorted({f"U+{ord(c):04X}" for c in name if ord(c) in _IN_NAMES})
    if hidden:
        notes.append(f"invisible characters: {', '.join(hidden)}")
    scripts = sorted({s.title() for s in map(_script, name) if s})
    if len(scripts) > 1:
        notes.append(f"mixed scripts: {', '.join(scripts)}")
    elif scripts and scripts != ["Latin"] and any(c.isascii() and c.isalpha() for c in name):
        notes.append(f"mixed scripts: {scripts[0]}, Latin")
    return notes
