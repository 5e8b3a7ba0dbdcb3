"""Result lines cut to the fields a pipeline reads (``tooleval score --fields``).

The full result line (every parameter, the reason and the whole diagnosis,
about 2 KB for a two-call row) stays the default, where a person reads it.
A pipeline that only routes on the verdict asks for a preset or a list of
fields; :class:`FieldsWriter` writes each result line with just those keys,
in the order given, whichever engine scored it: the compiled kernel's stream
writes its lines with those fields from the start (``kernel/src/fields.rs``,
the same bytes as :func:`project`; no reason or diagnosis is built unless a
field asks for it), everything else writes through the writer.

The fields are the result line's own keys (``id``, ``metric``, ``params``,
``score``, ``threshold``, ``passed``, ``reason``, ``diagnosis``) and two
derived ones: ``verdict`` (``"pass"``, ``"fail"`` or ``"unscored"``) and
``code``, the kinds of problem the diagnosis lists, joined by ``+``
(``missing``, ``extra``, ``order``, ``arguments``: an argument compared
below 1.0), ``"unscored"`` for an
unscored row and ``"ok"`` when it lists none.

>>> fields = parse_fields("compact")
>>> fields
('id', 'metric', 'score', 'verdict', 'code')
>>> line = (b'{"id":"r1","metric":"m","score":0.5,"passed":false,"reason":"...",'
...         b'"diagnosis":{"missing":[{"name":"g"}],"extra":[],"arguments":[]}}\\n')
>>> project(line, fields)
b'{"id":"r1","metric":"m","score":0.5,"verdict":"fail","code":"missing"}\\n'
"""

from __future__ import annotations

from typing import IO, Any

import orjson

from tooleval.errors import ConfigError, did_you_mean

__all__ = ["FIELDS", "PRESETS", "FieldsWriter", "parse_fields", "project"]

#: Every field ``--fields`` takes: the result line's keys, then the derived ones.
FIELDS = (
    "id",
    "metric",
    "params",
    "score",
    "threshold",
    "passed",
    "reason",
    "diagnosis",
    "verdict",
    "code",
)
#: The named sets of fields (``full``: the result line as it is, byte for byte).
PRESETS: dict[str, tuple[str, ...]] = {
    "full": (),
    "compact": ("id", "metric", "score", "verdict", "code"),
}
# The diagnosis' lists and the problem each names, in the order a code lists them.
_PROBLEMS = (("missing", "missing"), ("extra", "extra"), ("order_violations", "order"))


def parse_fields(text: str) -> tuple[str, ...]:
    """The fields of ``--fields``: a preset's name or a comma-separated list (``()``: full).

    >>> parse_fields("id,score,passed")
    ('id', 'score', 'passed')
    >>> parse_fields("full")
    ()
    >>> parse_fields("id,scor")
    Traceback (most recent call last):
    tooleval.errors.ConfigError: field --fields: unknown field 'scor' (did you mean 'score'?); expected a preset (full, compact) or fields from id, metric, params, score, threshold, passed, reason, diagnosis, verdict, code
    """
    name = text.strip()
    if name in PRESETS:
        return PRESETS[name]
    chosen = [part.strip() for part in name.split(",")]
    allowed = f"expected a preset ({', '.join(PRESETS)}) or fields from {', '.join(FIELDS)}"
    for part in chosen:
        if part not in FIELDS:
            hint = did_you_mean(part, [*FIELDS, *PRESETS]) if part else ""
            raise ConfigError(f"unknown field {part!r}{hint}; {allowed}", field="--fields")
    if len(set(chosen)) != len(chosen):
        raise ConfigError(f"a field is listed twice in {text!r}; {allowed}", field="--fields")
    return tuple(chosen)


def _code(result: dict[str, Any]) -> str:
    if result.get("score") is None:
        return "unscored"
    diagnosis = result.get("diagnosis")
    if not isinstance(diagnosis, dict):
        return "ok"
    found = [code for key, code in _PROBLEMS if diagnosis.get(key)]
    checks = diagnosis.get("arguments") or ()
    if any(isinstance(c, dict) and c.get("score", 1.0) != 1.0 for c in checks):
        found.append("arguments")
    return "+".join(found) or "ok"


def _verdict(result: dict[str, Any]) -> str:
    if result.get("score") is None:
        return "unscored"
    return "pass" if result.get("passed") else "fail"


_DERIVED = {"verdict": _verdict, "code": _code}


def project(line: bytes, fields: tuple[str, ...]) -> bytes:
    """One result line with only ``fields``, in that order (a key the line lacks is left out)."""
    result = orjson.loads(line)
    kept: dict[str, Any] = {}
    for name in fields:
        derive = _DERIVED.get(name)
        if derive is not None:
            kept[name] = derive(result)
        elif name in result:
            kept[name] = result[name]
    return orjson.dumps(kept, option=orjson.OPT_APPEND_NEWLINE)


class FieldsWriter:
    """A binary stream that writes each result line given to it cut to ``fields``.

    Lines may arrive in pieces or many at once (the kernel writes blocks); a
    line is written when its newline has come, and :meth:`flush` writes nothing
    partial (the scorers only ever write whole lines).
    """

    def __init__(self, out: IO[bytes], fields: tuple[str, ...]) -> None:
        self._out, self._fields = out, fields
        self._rest = b""

    @property
    def target(self) -> IO[bytes]:
        """The stream the cut lines go to (the kernel's stream writes to it directly)."""
        return self._out

    @property
    def fields(self) -> tuple[str, ...]:
        return self._fields

    def write(self, given: bytes) -> int:
        data = self._rest + bytes(given) if self._rest else bytes(given)
        cut = data.rfind(b"\n") + 1
        self._rest = data[cut:]
        if cut:
            fields = self._fields
            self._out.write(
                b"".join(project(line, fields) for line in data[:cut].splitlines() if line)
            )
        return len(given)

    def flush(self) -> None:
        self._out.flush()
