"""The kernel's matchers beyond exact: `tooleval score --option args=...` with and without it.

On the two-call rows of ``bench/kernel_score.py`` (``--rows``, default
100,000), ``tooleval score --metric tool_call_accuracy --option args=<spec>``
runs as a fresh process with the compiled kernel and with
``TOOLEVAL_NO_KERNEL=1`` (pure Python: what these matchers cost before the
kernel took them, when every row went through Python); the two output files
must be byte-identical. ``output_contains`` is measured the same way on those
rows given a final answer and ``metadata.output_contains``. Results are printed and saved to
``bench/out/kernel_matchers.json``.

    python bench/kernel_matchers.py                       # every spec, kernel and Python
    python bench/kernel_matchers.py --rows 20000 --python similarity
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import orjson  # noqa: E402
from kernel_score import OUT, TOOLEVAL, rows_file, run  # noqa: E402

SPECS: dict[str, Any] = {
    "exact": "exact",  # the baseline the kernel took before
    "similarity": "similarity",
    "jaro_winkler": "jaro_winkler",
    "city_similarity": {
        "default": "exact",
        "keys": {"city": {"similarity": {"min_score": 0.8, "case_sensitive": False}}},
    },
    "any_of": {"default": "exact", "keys": {"city": {"any_of": ["Paris", "Berlin", "Lisbon"]}}},
    "unordered": {"default": "exact", "keys": {"filters.tags": "unordered"}},
    "numeric_text": "numeric_text",
    "normalized_numeric_text": {"normalized": {"numeric_text": True}},
    "output_contains": None,  # the metric output_contains instead of a matcher
}


CONTAINS = "output_contains"  # the metric, on the same rows with a final answer and values


def contains_rows(path: Path) -> Path:
    """The rows of ``path`` with an ``output`` and ``metadata.output_contains`` (written once)."""
    target = path.with_name(path.stem + "_contains.jsonl")
    if target.exists():
        return target
    with path.open("rb") as source, target.open("wb") as out:
        for number, line in enumerate(source):
            row = orjson.loads(line)
            city = row["expected_tools"][0]["args"]["city"]
            row["output"] = f"Booked {city if number % 3 else 'a city'}; confirmation sent."
            row["metadata"] = {"output_contains": [city.upper(), "confirmation", number % 7]}
            out.write(orjson.dumps(row) + b"\n")
    return target


def score(path: Path, name: str, engine: str) -> dict[str, Any]:
    out = OUT / f"kernel_matchers_{name}_{engine}.jsonl"
    if name == CONTAINS:
        command = [*TOOLEVAL, "score", str(contains_rows(path)), "--metric", CONTAINS]
    else:
        command = [*TOOLEVAL, "score", str(path), "--metric", "tool_call_accuracy"]
        command += ["--option", f"args={json.dumps(SPECS[name])}"]
    command += ["--format", "jsonl", "-o", str(out)]
    env = {"TOOLEVAL_NO_KERNEL": "1"} if engine == "python" else None
    found = run(command, env=env)
    found.update(spec=name, engine=engine, output=str(out))
    return found


def digest(path: str) -> str:
    """SHA-256 of a file, read in blocks (the bench process stays small: children
    inherit its peak RSS in ``ru_maxrss``)."""
    sha = hashlib.sha256()
    with open(path, "rb") as file:
        while block := file.read(1 << 20):
            sha.update(block)
    return sha.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument(
        "--python",
        default="exact,similarity,unordered,output_contains",
        help="specs also run in pure Python (comma list, 'all' or 'none')",
    )
    options = parser.parse_args()
    path = rows_file(options.rows)
    in_python = set(SPECS) if options.python == "all" else set(options.python.split(","))
    results = []
    print(f"load average before: {os.getloadavg()}", flush=True)
    for name in SPECS:
        engines = ["kernel", "python"] if name in in_python else ["kernel"]
        found = {engine: score(path, name, engine) for engine in engines}
        outputs = {digest(item["output"]) for item in found.values()}
        if len(outputs) != 1:
            raise SystemExit(f"{name}: kernel and Python outputs differ")
        for engine, item in found.items():
            item["rows"] = options.rows
            item["rows_per_s"] = options.rows / item["seconds"]
            results.append(item)
            print(
                f"args={name} ({engine}): {item['seconds']:.2f} s wall, {item['cpu']:.2f} s CPU, "
                f"{item['rows_per_s']:,.0f} rows/s, {item['rss_mb']:.0f} MB",
                flush=True,
            )
    print(f"load average after: {os.getloadavg()}", flush=True)
    report = {
        "machine": platform.platform(),
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg(),
        "results": results,
    }
    (OUT / "kernel_matchers.json").write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
