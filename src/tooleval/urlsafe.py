"""The agent's URL as errors and logs show it: ``${VAR}`` filled in, secrets masked.

A connection error must name the URL that was tried (``http://10.0.0.7:8000/agent``,
not ``${AGENT_URL}/agent``), but never a secret in it. :func:`shown_url` fills
in each variable that is set (an unset one stays ``${NAME}``), then masks with
``***``: a password in the userinfo, and each query value whose name looks
secret (``key``, ``token``, ``secret``, ``password``, ``sig``, ``auth``, ...),
that looks like a token (long, letters and digits), or that came from a
variable rather than from the configured text. Header values are never
shown anywhere (only their names).

>>> env = {"AGENT_URL": "http://bob:hunter2@10.0.0.7:8000", "KEY": "k-123"}
>>> shown_url("${AGENT_URL}/agent?api_key=${KEY}&lang=en&v=${V}", environ=env)
'http://bob:***@10.0.0.7:8000/agent?api_key=***&lang=en&v=${V}'
>>> mask_url("https://x.test/run?sig=abc&page=2")
'https://x.test/run?sig=***&page=2'
>>> mask_urls_in("POST https://u:pw@x.test/v1?key=k failed")
'POST https://u:***@x.test/v1?key=*** failed'
"""

from __future__ import annotations

import os
import re
import urllib.parse
from collections.abc import Mapping

__all__ = ["MASK", "mask_url", "mask_urls_in", "shown_url"]

MASK = "***"

_ENV = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_SECRET_WORDS = (
    "key",
    "token",
    "secret",
    "password",
    "passwd",
    "pwd",
    "sig",
    "auth",
    "credential",
    "session",
    "jwt",
    "bearer",
)
_URL_IN_TEXT = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>]+")
_TOKEN_LIKE = re.compile(r"[A-Za-z0-9_\-.~+/=]{24,}")


def shown_url(template: str, *, environ: Mapping[str, str] | None = None) -> str:
    """``template`` with each set ``${VAR}`` filled in and its secrets masked."""
    env = os.environ if environ is None else environ
    resolved = _ENV.sub(lambda m: env.get(m.group(1), m.group(0)), template)
    return mask_url(resolved, template=template)


def mask_url(url: str, *, template: str | None = None) -> str:
    """``url`` with a userinfo password and secret-looking query values masked.

    ``template`` (the URL as configured) marks the query values that came
    from a variable: any value not written literally in it is masked too.
    """
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError:  # a bad port: show the host and path, no userinfo, no query values
        head = url.partition("?")[0]
        scheme, sep, rest = head.partition("://")
        return f"{scheme}{sep}{rest.rpartition('@')[2]}" + (f"?{MASK}" if "?" in url else "")
    netloc = parts.netloc
    if parts.password is not None:
        host = parts.hostname or ""
        if ":" in host:
            host = f"[{host}]"
        netloc = f"{parts.username}:{MASK}@{host}" + (f":{port}" if port is not None else "")
    query = parts.query
    if query:
        literal = _literal_pairs(template)
        shown = []
        for piece in query.split("&"):
            name, sep, value = piece.partition("=")
            if sep and value and _secret(urllib.parse.unquote_plus(name), value, piece, literal):
                piece = f"{name}={MASK}"
            shown.append(piece)
        query = "&".join(shown)
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc, query=query))


def _literal_pairs(template: str | None) -> set[str] | None:
    """The ``name=value`` pieces written literally in the template's query (None: no template)."""
    if template is None:
        return None
    _, mark, query = template.partition("?")
    if not mark:
        return set()  # the whole query came from a variable
    return {piece for piece in query.split("&") if "${" not in piece}


def _secret(name: str, value: str, piece: str, literal: set[str] | None) -> bool:
    if _ENV.fullmatch(value):  # a variable's name (unset, or a configured URL): not a secret
        return False
    lowered = name.lower()
    if any(word in lowered for word in _SECRET_WORDS):
        return True
    if _TOKEN_LIKE.fullmatch(value) and any(c.isdigit() for c in value):
        return any(c.isalpha() for c in value)
    return literal is not None and piece not in literal


def mask_urls_in(text: str) -> str:
    """``text`` (an error message, a log line) with every URL in it masked by :func:`mask_url`."""
    return _URL_IN_TEXT.sub(lambda m: mask_url(m.group(0)), text)
