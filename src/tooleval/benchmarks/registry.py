"""Every benchmark by name, read from the ``tooleval.benchmarks`` entry-point group.

Built-in and third-party benchmarks come the same way: a distribution
declares ``[project.entry-points."tooleval.benchmarks"]`` with
``NAME = "package.module:RECORD"``, RECORD a :class:`~tooleval.benchmarks.Benchmark`.
The group is read once, on first use; a declared entry that fails to load, or
is not a Benchmark, raises naming it. Names are compared case- and
``-``/``_``-insensitively; an unknown name gets "did you mean".

>>> get_benchmark("Tau_Bench").name
'tau-bench'
>>> canonical_format("JSONL")
'jsonl'
"""

from __future__ import annotations

import threading

from tooleval.benchmarks.base import Benchmark, normalize_name
from tooleval.errors import ConfigError

__all__ = [
    "CANONICAL_FORMATS",
    "ENTRY_POINT_GROUP",
    "canonical_format",
    "format_names",
    "get_benchmark",
    "list_benchmarks",
]

ENTRY_POINT_GROUP = "tooleval.benchmarks"
#: What ``--format`` takes besides benchmarks: canonical rows, JSONL or one JSON array.
CANONICAL_FORMATS = ("jsonl", "json")

_lock = threading.Lock()
_loaded: list[Benchmark] = []
_state = {"loaded": False}


def _load() -> list[Benchmark]:
    from tooleval.plugins import entry_points

    found: list[Benchmark] = []
    seen: dict[str, str] = {}
    for point in sorted(entry_points(ENTRY_POINT_GROUP), key=lambda p: p.name):
        try:
            record = point.load()
        except Exception as exc:
            raise ConfigError(
                f"benchmark {point.name!r} ({point.value}) in entry point group "
                f"{ENTRY_POINT_GROUP!r} failed to load: {type(exc).__name__}: {exc}; "
                "reinstall or uninstall the package that declares it",
                field="--format",
            ) from exc
        if not isinstance(record, Benchmark):
            raise ConfigError(
                f"benchmark {point.name!r} ({point.value}) is a {type(record).__name__}, "
                "expected a tooleval.benchmarks.Benchmark",
                field="--format",
            )
        for name in (record.name, *record.aliases):
            key = normalize_name(name)
            if key in seen or key in CANONICAL_FORMATS:
                raise ConfigError(
                    f"benchmark {record.name!r} ({point.value}) takes the name {name!r}, "
                    f"already {seen.get(key, 'a canonical row format')}",
                    field="--format",
                )
            seen[key] = f"benchmark {record.name!r} ({point.value})"
        found.append(record)
    return found


def list_benchmarks() -> list[Benchmark]:
    """Every installed benchmark, by canonical name."""
    with _lock:
        if not _state["loaded"]:
            _loaded[:] = _load()
            _state["loaded"] = True
        return sorted(_loaded, key=lambda b: b.name)


def format_names() -> list[str]:
    """What ``--format`` takes, canonical spellings: every benchmark, then ``jsonl``, ``json``."""
    return [b.name for b in list_benchmarks()] + list(CANONICAL_FORMATS)


def _unknown(name: str) -> ConfigError:
    import difflib  # only when a message is being written

    names = format_names()
    close = difflib.get_close_matches(normalize_name(name), names, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return ConfigError(
        f"unknown format {name!r}{hint} (expected one of {', '.join(names)})", field="--format"
    )


def get_benchmark(name: str) -> Benchmark:
    """The benchmark ``name`` names (any spelling); ConfigError with "did you mean" otherwise."""
    for record in list_benchmarks():
        if record.accepts(name):
            return record
    raise _unknown(name)


def canonical_format(name: str) -> str:
    """The canonical spelling of a ``--format`` value (a benchmark, ``jsonl`` or ``json``)."""
    key = normalize_name(name)
    if key in CANONICAL_FORMATS:
        return key
    return get_benchmark(name).name
