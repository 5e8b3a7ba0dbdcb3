"""Control characters from agents: never in XML, never applied on a terminal."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from hypothesis import given, settings
from hypothesis import strategies as st

from tooleval.textsafe import BIDI_CONTROLS, strip_ansi, visible, xml_safe


def test_ansi_sequences_are_removed_and_other_controls_shown():
    assert strip_ansi("\x1b[1;31mred\x1b[0m \x1b]8;;http://x\x07link\x1b]8;;\x07") == "red link"
    assert visible("a\x00b\x07c\x7fd\x85e") == "a\\x00b\\x07c\\x7fd\\x85e"
    assert visible("tab\tnew\nline\r") == "tab\tnew\nline\r"
    assert visible("refund\u202egnp.exe") == "refund<U+202E>gnp.exe"
    assert visible("\u2066x\u2069") == "<U+2066>x<U+2069>"
    assert visible(42) == "42"


def _round_trip(text: str) -> str:
    root = ET.Element("case", message=xml_safe(text))
    root.text = xml_safe(text)
    parsed = ET.fromstring(ET.tostring(root, encoding="unicode"))
    # An XML parser reads a bare carriage return in text as a newline.
    expected = xml_safe(text).replace("\r\n", "\n").replace("\r", "\n")
    assert (parsed.text or "") == expected
    return parsed.get("message")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=())))
def test_any_text_becomes_parseable_xml_without_escapes_or_bidi(text):
    shown = _round_trip(text)
    assert "\x1b" not in shown
    assert not any(ch in BIDI_CONTROLS for ch in shown)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["\x1b[", "31m", "\x1b]", "\x07", "\x9b", "x", "\x00", ";"])))
def test_fragments_of_escape_sequences_never_survive(parts):
    text = "".join(parts)
    assert "\x1b" not in visible(text) and "\x9b" not in visible(text)
    _round_trip(text)
