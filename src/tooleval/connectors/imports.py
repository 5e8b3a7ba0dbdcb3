"""Import ``module:function`` targets from a plan's folder too.

A plan names its agent, tool executor or scripted user as
``module:function``; the module usually sits beside the plan
(``eval/plan.yaml`` and ``eval/tools.py``). The plan's folder is put at the
front of ``sys.path`` (once) before importing, so the target imports from
any working directory.

>>> load_from("json:dumps", field="x")([1])
'[1]'
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["load_from"]


def load_from(target: Any, *, field: str, base_dir: str | Path | None = None) -> Callable[..., Any]:
    """:func:`~tooleval.connectors.python.load_target` with ``base_dir`` importable."""
    from tooleval.connectors.python import load_target

    if base_dir is not None:
        folder = str(Path(base_dir).resolve())
        if folder not in sys.path:
            sys.path.insert(0, folder)
    return load_target(target, field=field)
