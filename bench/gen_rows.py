"""Generate benchmark rows: canonical tooleval JSONL with nested tool arguments.

Each row has ``id``, ``input``, ``tools_called`` and ``expected_tools`` (both
lists of ``{"name", "args"}``), so the same file feeds ``tooleval score`` and
every peer's worker. About half the rows are exact, the rest carry the usual
agent mistakes (a changed or missing argument, swapped order, an extra or a
missing call), so no tool can shortcut on "all equal".

    python bench/gen_rows.py --rows 1000000 --calls 2,8 --out bench/out/rows_1m.jsonl
"""

from __future__ import annotations

import argparse
import copy
import random
from pathlib import Path
from typing import Any

import orjson

TOOLS = [
    "search_flights",
    "book_flight",
    "get_weather",
    "lookup_order",
    "cancel_order",
    "send_email",
    "create_ticket",
    "query_db",
]
CITIES = ["Paris", "Berlin", "Lisbon", "Tokyo", "Austin", "Nairobi"]


def _args(rng: random.Random, i: int) -> dict[str, Any]:
    # Flat scalars plus one nested object and one list, as real tool schemas have.
    return {
        "city": rng.choice(CITIES),
        "limit": rng.randint(1, 50),
        "strict": rng.random() < 0.5,
        "filters": {
            "date": {"start": f"2024-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}", "days": i},
            "tags": rng.sample(["a", "b", "c", "d"], 2),
            "price": round(rng.uniform(10, 900), 2),
        },
        "fields": ["id", "status", "total"][: rng.randint(1, 3)],
    }


def _mistake(rng: random.Random, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = copy.deepcopy(calls)
    kind = rng.random()
    if kind < 0.3:
        out[rng.randrange(len(out))]["args"]["city"] = rng.choice(CITIES)
    elif kind < 0.45:
        out[rng.randrange(len(out))]["args"]["filters"]["date"]["days"] += 1
    elif kind < 0.6:
        out[rng.randrange(len(out))]["args"].pop("limit")
    elif kind < 0.75 and len(out) > 1:
        i, j = rng.sample(range(len(out)), 2)
        out[i], out[j] = out[j], out[i]
    elif kind < 0.88:
        out.insert(rng.randint(0, len(out)), {"name": rng.choice(TOOLS), "args": _args(rng, 0)})
    elif len(out) > 1:
        out.pop(rng.randrange(len(out)))
    return out


def make_row(rng: random.Random, index: int, n_calls: int) -> dict[str, Any]:
    expected = [{"name": rng.choice(TOOLS), "args": _args(rng, i)} for i in range(n_calls)]
    actual = copy.deepcopy(expected) if rng.random() < 0.5 else _mistake(rng, expected)
    return {
        "id": f"r{index}",
        "input": "plan my trip and email me the booking",
        "tools_called": actual,
        "expected_tools": expected,
    }


def write_rows(path: Path, n_rows: int, calls: list[int], *, seed: int = 7) -> Path:
    """Write ``n_rows`` rows cycling through the call counts in ``calls``."""
    rng = random.Random(seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as out:
        for i in range(n_rows):
            out.write(orjson.dumps(make_row(rng, i, calls[i % len(calls)])))
            out.write(b"\n")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, required=True)
    parser.add_argument("--calls", default="2,8", help="comma-separated calls per row, cycled")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    calls = [int(c) for c in args.calls.split(",")]
    write_rows(args.out, args.rows, calls, seed=args.seed)
    print(f"wrote {args.rows} rows to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
