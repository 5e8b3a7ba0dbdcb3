"""Entry points of installed distributions, read without importing :mod:`importlib.metadata`.

Plug-ins (benchmarks, metric providers, environments) are declared as entry points.
``importlib.metadata`` finds them, but importing it costs more than the rest of a
``tooleval score`` start-up's plug-in work (it pulls in ``email``, ``zipfile``, ``csv``
and its metadata parsers). :func:`entry_points` reads the same ``entry_points.txt``
files itself, with ``importlib.metadata``'s rules: distributions in ``sys.path`` order,
the first of each normalised name kept, lines stripped, ``#`` comments skipped. It
gives the same entry points in the same order; where the environment holds anything
it does not read the same way (a zip or egg on ``sys.path``, a metadata folder whose
name says no distribution name, another distribution finder on ``sys.meta_path``) it
asks ``importlib.metadata``.

>>> [point.name for point in entry_points("tooleval.benchmarks")][:2]
['api-bank', 'bfcl']
>>> point = entry_points("tooleval.benchmarks")[0]
>>> point.value, point.group
('tooleval.benchmarks.api_bank:BENCHMARK', 'tooleval.benchmarks')
"""

from __future__ import annotations

import functools
import importlib
import importlib.machinery
import os
import re
import sys
from dataclasses import dataclass
from typing import Any

__all__ = ["EntryPoint", "entry_points"]

# `importlib.metadata.EntryPoint.pattern`: module, optional `:attr.path`, optional `[extras]`
_VALUE = re.compile(r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$")
_INFO_SUFFIXES = (".dist-info", ".egg-info")


@dataclass(frozen=True)
class EntryPoint:
    """One declared entry point: ``name = value`` in section ``group``."""

    name: str
    value: str
    group: str

    def load(self) -> Any:
        """The object the value names (the module when it names no attribute)."""
        match = _VALUE.match(self.value)
        if match is None:
            raise ValueError(f"entry point {self.name!r}: malformed value {self.value!r}")
        module = importlib.import_module(match.group("module"))
        attrs = filter(None, (match.group("attr") or "").split("."))
        return functools.reduce(getattr, attrs, module)


def _normalize(name: str) -> str:
    # `importlib.metadata.Prepared.normalize` (PEP 503, `-` as `_`)
    return re.sub(r"[-_.]+", "-", name).lower().replace("-", "_")


def _parse(text: str, group: str) -> list[EntryPoint]:
    # `importlib.metadata.Sectioned.section_pairs` then `Pair.parse`, one group kept
    found: list[EntryPoint] = []
    section = None
    for line in map(str.strip, text.splitlines()):
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line.strip("[]")
            continue
        if section == group:
            name, _, value = line.partition("=")
            found.append(EntryPoint(name.strip(), value.strip(), group))
    return found


def _infos(root: str) -> list[str] | None:
    """The metadata folders in ``root``, grouped by normalised name as importlib.metadata lists them.

    None when ``root`` is something this module does not read (a zip or another file, an egg).
    """
    try:
        children = os.listdir(root or ".")
    except OSError:
        return None if os.path.exists(root or ".") else []
    if os.path.basename(root).lower().endswith(".egg"):
        return None
    grouped: dict[str, list[str]] = {}
    for child in children:
        low = child.lower()
        if low.endswith(_INFO_SUFFIXES):
            key = _normalize(low.rpartition(".")[0].partition("-")[0])
            grouped.setdefault(key, []).append(child)
    return [child for group in grouped.values() for child in group]


def _scan(group: str) -> list[EntryPoint] | None:
    """The entry points of ``group``; None when importlib.metadata must be asked."""
    finders = [f for f in sys.meta_path if getattr(f, "find_distributions", None) is not None]
    if any(f is not _PATH_FINDER for f in finders):
        return None  # a distribution finder besides the standard one
    seen: set[str] = set()
    found: list[EntryPoint] = []
    for root in sys.path:
        infos = _infos(root) if isinstance(root, str) else None
        if infos is None:
            return None
        for child in infos:
            stem, ext = os.path.splitext(child)
            key = _normalize(stem.partition("-")[0]) if ext in _INFO_SUFFIXES else ""
            if not key:
                return None  # the name comes from its METADATA file
            if key in seen:
                continue
            seen.add(key)
            try:
                with open(os.path.join(root, child, "entry_points.txt"), encoding="utf-8") as f:
                    text = f.read()
            except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError):
                continue
            found.extend(_parse(text, group))
    return found


def entry_points(group: str) -> list[EntryPoint]:
    """Every entry point of ``group``, as ``importlib.metadata.entry_points(group=...)`` lists them."""
    found = _scan(group)
    if found is not None:
        return found
    from importlib.metadata import entry_points as metadata_entry_points

    return [
        EntryPoint(point.name, point.value, point.group)
        for point in metadata_entry_points(group=group)
    ]


_PATH_FINDER: Any = importlib.machinery.PathFinder
