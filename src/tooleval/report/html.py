"""A tiny HTML builder that escapes by default.

Every string that reaches a page goes through :func:`el` or :func:`esc`, so
agent output, tool arguments and dataset cells are text, never markup, and
control or bidi-override characters in them show as ``⟨U+202E⟩``
(:func:`tooleval.report.names.visible_controls`) instead of reordering the page.
Already-built fragments are :class:`Safe`; nothing else is trusted.

Links are the one place a value lands in an attribute: :func:`href` builds
them from a fixed local path plus percent-encoded parts, so user data can
never choose a scheme (``javascript:``) or leave the page's origin.

>>> str(el("p", "<script>", class_="note"))
'<p class="note">&lt;script&gt;</p>'
>>> str(href("#", fragment="row-3"))
'#row-3'
>>> str(href("/runs", "a/b<", page=2, category="x&y"))
'/runs/a%2Fb%3C?page=2&category=x%26y'
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote, urlencode

from tooleval.report.names import visible_controls

__all__ = ["Safe", "el", "esc", "frag", "href", "void"]

# Attributes that could run script or fetch something: only values we build get in.
_URL_ATTRS = {"href", "src", "action", "formaction", "xlink:href"}
_VOID = {"br", "hr", "img", "input", "meta", "link", "col", "wbr"}


class Safe(str):
    """A fragment of HTML that was built here (escaped already)."""

    __slots__ = ()

    def __html__(self) -> str:
        return str(self)


def esc(value: Any) -> Safe:
    """Escape any value as HTML text (None is empty).

    >>> str(esc("<b> & co")), str(esc(None))
    ('&lt;b&gt; &amp; co', '')
    """
    if isinstance(value, Safe):
        return value
    if value is None:
        return Safe("")
    return Safe(html.escape(visible_controls(str(value)), quote=True))


def frag(*parts: Any) -> Safe:
    """Concatenate fragments and texts (texts escaped; None and False dropped).

    >>> str(frag(el("b", "x"), " < ", None, False, 3))
    '<b>x</b> &lt; 3'
    """
    return Safe("".join(_child(p) for p in parts))


def _child(part: Any) -> str:
    if part is None or part is False:
        return ""
    if isinstance(part, Safe):
        return part
    if isinstance(part, str | int | float):
        return html.escape(visible_controls(str(part)), quote=True)
    if isinstance(part, Iterable):
        return "".join(_child(p) for p in part)
    return html.escape(visible_controls(str(part)), quote=True)


def _attrs(attrs: Mapping[str, Any]) -> str:
    out = []
    for raw_name, value in attrs.items():
        if value is None or value is False:
            continue
        name = raw_name.rstrip("_").replace("_", "-")
        if name.startswith("on") or name == "style":
            # Inline handlers and styles are blocked by the viewer's CSP; never emit them.
            raise ValueError(f"attribute {name!r} is not allowed")
        if name in _URL_ATTRS and not isinstance(value, Href):
            raise ValueError(f"attribute {name!r} needs a value built by href()")
        if value is True:
            out.append(f" {name}")
        else:
            out.append(f' {name}="{html.escape(visible_controls(str(value)), quote=True)}"')
    return "".join(out)


def el(tag: str, *children: Any, **attrs: Any) -> Safe:
    """One element; children are escaped unless Safe; ``class_`` means ``class``."""
    if tag in _VOID:
        return Safe(f"<{tag}{_attrs(attrs)}>")
    return Safe(f"<{tag}{_attrs(attrs)}>{frag(*children)}</{tag}>")


def void(tag: str, **attrs: Any) -> Safe:
    """A void element such as ``<input>`` or ``<meta>``.

    >>> str(void("meta", charset="utf-8"))
    '<meta charset="utf-8">'
    """
    return Safe(f"<{tag}{_attrs(attrs)}>")


class Href(str):
    """A link built by :func:`href`: a local path with percent-encoded parts."""

    __slots__ = ()


def href(base: str, *parts: Any, fragment: str | None = None, **query: Any) -> Href:
    """A same-origin link: ``base`` (a constant starting with ``/``, ``#`` or ``?``).

    ``parts`` are appended as percent-encoded path segments, ``query`` as an
    encoded query string (None values left out), ``fragment`` after ``#``.
    """
    if not base.startswith(("/", "#", "?", "./")) or base.startswith("//"):
        raise ValueError(f"links must be local, got {base!r}")
    path = base.rstrip("/") if parts else base
    for part in parts:
        path += "/" + quote(str(part), safe="")
    pairs = [(k, v) for k, v in query.items() if v is not None and v != ""]
    if pairs:
        if not path.endswith("?"):
            path += "&" if "?" in path else "?"
        path += urlencode(pairs, doseq=True)
    if fragment is not None:
        path = path.removesuffix("#") + "#" + quote(str(fragment), safe="")
    return Href(path)
