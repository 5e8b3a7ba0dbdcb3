"""Shared by every worker (each runs in its own venv, so only the stdlib here)."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

BUDGET_S = 1.5  # per repeat; enough for a stable rate without starving the 2 cores
REPEATS = 3


def read_rows(path: str) -> dict[int, list[dict[str, Any]]]:
    """Rows grouped by their number of expected calls (2 and 8 in the default file)."""
    groups: dict[int, list[dict[str, Any]]] = {}
    with open(path, "rb") as fh:
        for line in fh:
            if line.strip():
                row = json.loads(line)
                groups.setdefault(len(row["expected_tools"]), []).append(row)
    return groups


def rate(score_one: Callable[[Any], Any], items: Sequence[Any]) -> tuple[float, int, float]:
    """Best samples/s over REPEATS passes, each stopping after BUDGET_S seconds.

    Returns (samples_per_s, samples in the best pass, checksum of numeric scores).
    """
    best = (0.0, 0, 0.0)
    for _ in range(REPEATS):
        checksum = 0.0
        start = time.perf_counter()
        n = 0
        for item in items:
            checksum += _number(score_one(item))
            n += 1
            if not n % 32 and time.perf_counter() - start > BUDGET_S:
                break
        elapsed = time.perf_counter() - start
        if n / elapsed > best[0]:
            best = (n / elapsed, n, checksum)
    return best


def arate(
    score_one: Callable[[Any], Awaitable[Any]], items: Sequence[Any]
) -> tuple[float, int, float]:
    """Like :func:`rate` for a coroutine, all awaited inside one event loop."""

    async def one_pass() -> tuple[float, int, float]:
        checksum = 0.0
        start = time.perf_counter()
        n = 0
        for item in items:
            checksum += _number(await score_one(item))
            n += 1
            if not n % 32 and time.perf_counter() - start > BUDGET_S:
                break
        return n / (time.perf_counter() - start), n, checksum

    return max((asyncio.run(one_pass()) for _ in range(REPEATS)), key=lambda r: r[0])


def _number(value: Any) -> float:
    for attr in ("value", "score"):
        if hasattr(value, attr) and not isinstance(value, int | float | bool):
            value = getattr(value, attr)
    if isinstance(value, dict):
        value = value.get("score", 0)
    return float(value or 0)


def emit(tool: str, variant: str, calls: int, result: tuple[float, int, float], **extra) -> None:
    rate_, n, checksum = result
    record = {
        "tool": tool,
        "variant": variant,
        "calls": calls,
        "samples_per_s": rate_,
        "n": n,
        "mean_score": checksum / n if n else None,
        **extra,
    }
    print(json.dumps(record), flush=True)


def fail(tool: str, variant: str, error: BaseException) -> None:
    print(json.dumps({"tool": tool, "variant": variant, "error": repr(error)}), flush=True)
    print(f"{tool} {variant}: {error!r}", file=sys.stderr)
