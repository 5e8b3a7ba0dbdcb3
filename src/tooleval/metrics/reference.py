"""The option tables of docs/metrics.md, written from the metrics' declarations.

Each table sits between ``<!-- options: NAME -->`` and ``<!-- /options -->`` in
the page; :func:`refresh` rewrites every such block from the registry, so the
page cannot drift from the declarations (a test compares the committed page
with it). Regenerate the page with ``python -m tooleval.metrics.reference docs/metrics.md``.

>>> print(options_table("tool_call_accuracy").splitlines()[2])
| `order` | `"strict"` | `strict` \\| `flexible` | strict: the names must agree position by position in the listed order (ordering constraints of expected_tools are not used); flexible: any order |
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

from tooleval.metrics.registry import get_metric

__all__ = ["options_table", "refresh"]

_BLOCK = re.compile(r"(<!-- options: (?P<name>[a-z0-9_]+) -->\n).*?(<!-- /options -->)", re.S)


_SEP = " \\| "


def _value(value: Any) -> str:
    return f"`{json.dumps(value)}`"


def options_table(name: str) -> str:
    """The Markdown table of metric ``name``'s options: default, values, help."""
    info = get_metric(name)
    lines = ["| option | default | values | meaning |", "|---|---|---|---|"]
    for option, param in info.params.items():
        values = _SEP.join(
            f"`{c}`" if isinstance(c, str) else _value(c) for c in (param.choices or ())
        )
        meaning = param.help.replace("|", "\\|")
        default = _value(param.default)
        lines.append(f"| `{option}` | {default} | {values or '—'} | {meaning} |")
    for former, alias in info.aliases.names.items():
        values = _SEP.join(_value(v) for v in alias.values)
        lines.append(f"| `{former}` | (alias) | {values} | {alias.help} |")
    return "\n".join(lines) + "\n"


def refresh(text: str) -> str:
    """``text`` with every marked option table rewritten from the declarations."""
    return _BLOCK.sub(lambda m: m.group(1) + options_table(m.group("name")) + m.group(3), text)


if __name__ == "__main__":  # python -m tooleval.metrics.reference docs/metrics.md
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as handle:
            page = handle.read()
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(refresh(page))
