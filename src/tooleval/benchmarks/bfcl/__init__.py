"""BFCL (Berkeley Function Calling Leaderboard): result files scored with BFCL's AST rules.

Reader :mod:`~tooleval.benchmarks.bfcl.reader` (with the decoders
``decode_*`` and BFCL's model list :mod:`~tooleval.benchmarks.bfcl.models`),
metric ``bfcl_ast`` (:mod:`~tooleval.benchmarks.bfcl.metric`, rules in
:mod:`~tooleval.benchmarks.bfcl.checker`), and :data:`BENCHMARK`, the record
``tooleval score --format bfcl`` and ``tooleval bfcl`` read. Multi-turn
categories are scored by replay on bfcl-eval's simulated APIs; a folder is
read category by category (:mod:`~tooleval.benchmarks.bfcl.folder`), and a
category this machine cannot score is named, not the whole folder refused.

>>> BENCHMARK.name, BENCHMARK.default_metric
('bfcl', 'bfcl_ast')
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tooleval.benchmarks.base import Benchmark, lazy
from tooleval.errors import DatasetError
from tooleval.model import Sample

if TYPE_CHECKING:
    from tooleval.benchmarks.bfcl.folder import BfclFolder

__all__ = ["BENCHMARK", "read_bfcl", "read_results"]


def read_bfcl(
    path: Path,
    data: str | Path | None = None,
    *,
    mode: str = "auto",
    names: str = "auto",
    categories: Iterable[str] | None = None,
) -> list[Sample]:
    """Every sample of a BFCL result file, or of every result file in a folder.

    ``mode`` and ``names`` are :func:`~tooleval.benchmarks.bfcl.folder.read_folder`'s;
    ``categories`` limits a folder to those categories. A category this
    machine cannot score is left out with a warning naming it, the reason
    and the install that fixes it; so is the decoding mode decided from a
    file's results (a folder that names no model BFCL lists).
    """
    folder = read_results(path, data, mode=mode, names=names, categories=categories)
    for line in folder.notes():
        warnings.warn(line, stacklevel=2)
    return [sample for samples in folder.samples.values() for sample in samples]


def read_results(
    path: Path,
    data: str | Path | None = None,
    *,
    mode: str = "auto",
    names: str = "auto",
    categories: Iterable[str] | None = None,
) -> BfclFolder:
    """:func:`~tooleval.benchmarks.bfcl.folder.read_folder` of a result folder or one file."""
    from tooleval.benchmarks.bfcl.folder import read_folder
    from tooleval.benchmarks.bfcl.reader import category_from_filename

    if data is None:
        raise DatasetError("BFCL needs its data folder (--data DIR)", path=str(path))
    path = Path(path)
    if path.is_dir():
        return read_folder(path, data, categories=categories, mode=mode, names=names)
    category = category_from_filename(path.name)
    if category is None:
        raise DatasetError(
            "not a BFCL result file name (expected BFCL_v<N>_<category>_result.json)",
            path=str(path),
        )
    return read_folder(
        path.parent, data, categories=[category], result_file=path, mode=mode, names=names
    )


def _by_name(where: Any) -> bool:
    path = Path(where)
    if path.is_dir():
        return any(path.rglob("BFCL_v*_result.json"))
    return path.name.startswith("BFCL_v") and path.name.endswith("_result.json")


BENCHMARK = Benchmark(
    name="bfcl",
    title="BFCL",
    description="a BFCL result file or folder (+ --data)",
    read=read_bfcl,
    default_metric="bfcl_ast",
    metrics=lazy("tooleval.benchmarks.bfcl.metric:METRICS"),
    detect_path=_by_name,
    data="DIR: BFCL's data folder with the question files and possible_answer/",
    data_required=True,
    docs="docs/benchmarks/bfcl.md",
)
