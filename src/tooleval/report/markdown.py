"""Assistant text as safe markdown: paragraphs, lists, code blocks and inline marks, nothing raw.

A small subset, rendered through :func:`tooleval.report.html.el`, so every
character of the text is escaped: raw HTML in the text is shown as text,
never parsed, and no element or attribute comes from the text itself.
Supported: fenced code blocks (kept verbatim, language named), ``#``
headings (shown as bold lines: a transcript's headings would break the
page's heading order), ``-``/``*``/``1.`` lists, blank-line paragraphs, and
inline ```code```, ``**bold**``, ``*italic*`` and ``[text](url)`` (shown as
the text followed by the URL as text: no link is made from row data).

>>> print(markdown("**Done.** Run `ls`:\\n\\n```sh\\nls <dir>\\n```\\n<script>x</script>"))
<div class="md"><p><strong>Done.</strong> Run <code>ls</code>:</p><pre class="md-code" data-lang="sh"><code>ls &lt;dir&gt;</code></pre><p>&lt;script&gt;x&lt;/script&gt;</p></div>
"""

from __future__ import annotations

import re

from tooleval.report.html import Safe, el, frag

__all__ = ["markdown"]

_FENCE = re.compile(r"^\s{0,3}(```|~~~)\s*([\w+.-]*)\s*$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^\s{0,3}[-*+]\s+(.*)$")
_NUMBERED = re.compile(r"^\s{0,3}\d{1,9}[.)]\s+(.*)$")
_INLINE = re.compile(
    r"`(?P<code>[^`\n]+)`"
    r"|\*\*(?P<bold>[^*\n]+)\*\*"
    r"|(?<![\w*])\*(?P<em>[^*\s][^*\n]*?)\*(?![\w*])"
    r"|\[(?P<text>[^\]\n]+)\]\((?P<url>[^)\s]+)\)"
)


def _inline(text: str) -> Safe:
    parts: list[Safe | str] = []
    at = 0
    for found in _INLINE.finditer(text):
        parts.append(text[at : found.start()])
        if found.group("code") is not None:
            parts.append(el("code", found.group("code")))
        elif found.group("bold") is not None:
            parts.append(el("strong", found.group("bold")))
        elif found.group("em") is not None:
            parts.append(el("em", found.group("em")))
        else:
            parts.append(frag(found.group("text"), el("span", f" ({found.group('url')})")))
        at = found.end()
    parts.append(text[at:])
    return frag(*parts)


def markdown(text: str) -> Safe:
    """``text`` rendered as the markdown subset above, every character escaped."""
    blocks: list[Safe] = []
    paragraph: list[str] = []
    items: list[str] = []
    ordered = False

    def flush() -> None:
        nonlocal items
        if paragraph:
            blocks.append(el("p", _inline(" ".join(line.strip() for line in paragraph))))
            paragraph.clear()
        if items:
            blocks.append(el("ol" if ordered else "ul", [el("li", _inline(i)) for i in items]))
            items = []

    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        fence = _FENCE.match(line)
        if fence:
            flush()
            code: list[str] = []
            while index < len(lines) and not lines[index].strip().startswith(fence.group(1)):
                code.append(lines[index])
                index += 1
            index += 1  # the closing fence (an unclosed block runs to the end)
            blocks.append(
                el(
                    "pre",
                    el("code", "\n".join(code)),
                    class_="md-code",
                    data_lang=fence.group(2) or None,
                )
            )
            continue
        if not line.strip():
            flush()
            continue
        heading = _HEADING.match(line)
        bullet, numbered = _BULLET.match(line), _NUMBERED.match(line)
        if heading:
            flush()
            blocks.append(el("p", el("strong", _inline(heading.group(1))), class_="md-h"))
        elif bullet or numbered:
            if paragraph or (items and ordered != bool(numbered)):
                flush()
            ordered = bool(numbered)
            items.append((numbered or bullet).group(1))  # type: ignore[union-attr]
        elif items and line.startswith((" ", "\t")):
            items[-1] += " " + line.strip()
        else:
            if items:
                flush()
            paragraph.append(line)
    flush()
    return el("div", *blocks, class_="md")
