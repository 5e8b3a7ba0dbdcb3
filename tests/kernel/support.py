"""Shared set-up of the kernel's stream tests (`test_pipeline.py`, `test_stream.py`).

Importing it skips the importing module when the compiled kernel is not built;
`KERNEL_ONLY` (a module's `pytestmark`) skips it when `TOOLEVAL_NO_KERNEL` disables the
kernel. `rows(n)` writes canonical JSONL rows, some the kernel hands back to Python
(a `messages` key) and some blank lines; `python_bytes` is what the pure-Python
reference writes for them.
"""

from __future__ import annotations

import os
from typing import Any
from unittest import mock

import orjson
import pytest

pytest.importorskip(
    "tooleval._kernel", reason="compiled kernel not built (`make kernel` needs cargo)"
)

from tooleval.metrics import bind  # noqa: E402
from tooleval.metrics.engine import ENV_DISABLE, kernel_status  # noqa: E402
from tooleval.scoring import score_line  # noqa: E402

KERNEL_ONLY = pytest.mark.skipif(
    kernel_status() != "compiled", reason="compiled kernel disabled by TOOLEVAL_NO_KERNEL"
)


def handed_back(i: int) -> bool:
    """Row ``i`` of :func:`rows` is not a plain canonical row: the kernel hands it to Python."""
    return i % 7 == 3


def rows(n: int) -> bytes:
    """``n`` JSONL rows (an argument mismatch in some), with a blank line after every 11th."""
    lines = []
    for i in range(n):
        expected = [{"name": "f", "args": {"q": i, "tags": ["a", str(i % 3)]}}, "g"]
        called = [{"name": "f", "args": {"q": i if i % 4 else i + 1, "tags": ["a", "1"]}}]
        row: dict[str, Any] = {"id": f"r{i}", "tools_called": called, "expected_tools": expected}
        if handed_back(i):
            row["messages"] = []
        lines.append(orjson.dumps(row))
        if i % 11 == 5:
            lines.append(b"   ")  # blank: skipped but counted
    return b"\n".join(lines) + b"\n"


def python_bytes(metric: Any, data: bytes) -> bytes:
    """The result lines the pure-Python reference writes for ``data`` scored by ``metric``."""
    with mock.patch.dict(os.environ, {ENV_DISABLE: "1"}):
        reference = bind(metric.name, **metric.params)
        return b"".join(
            score_line(reference, n, line)
            for n, line in enumerate(data.splitlines(keepends=True), start=1)
            if line.strip()
        )
