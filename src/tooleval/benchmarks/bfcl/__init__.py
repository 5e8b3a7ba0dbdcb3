"""BFCL (Berkeley Function Calling Leaderboard): result files scored with BFCL's AST rules.

Reader :mod:`~tooleval.benchmarks.bfcl.reader` (with the decoders
``decode_*`` and BFCL's model list :mod:`~tooleval.benchmarks.bfcl.models`),
metric ``bfcl_ast`` (:mod:`~tooleval.benchmarks.bfcl.metric`, rules in
:mod:`~tooleval.benchmarks.bfcl.checker`), and :data:`BENCHMARK`, the record
``tooleval score --format bfcl`` and ``tooleval bfcl`` read. Multi-turn
categories are refused (BFCL checks them by replaying state).

>>> BENCHMARK.name, BENCHMARK.default_metric
('bfcl', 'bfcl_ast')
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tooleval.benchmarks.base import Benchmark, lazy
from tooleval.errors import DatasetError
from tooleval.model import Sample

__all__ = ["BENCHMARK", "read_bfcl"]


def read_bfcl(
    path: Path,
    data: str | Path | None = None,
    *,
    mode: str = "auto",
    names: str = "auto",
    categories: Iterable[str] | None = None,
) -> list[Sample]:
    """Every sample of a BFCL result file, or of every result file in a folder.

    ``mode`` and ``names`` are :func:`~tooleval.benchmarks.bfcl.reader.load_bfcl`'s;
    ``categories`` limits a folder to those categories.
    """
    from tooleval.benchmarks.bfcl.reader import category_from_filename, load_bfcl

    if data is None:
        raise DatasetError("BFCL needs its data folder (--data DIR)", path=str(path))
    if path.is_dir():
        per_category = load_bfcl(path, data, categories=categories, mode=mode, names=names)
    else:
        category = category_from_filename(path.name)
        if category is None:
            raise DatasetError(
                "not a BFCL result file name (expected BFCL_v<N>_<category>_result.json)",
                path=str(path),
            )
        per_category = load_bfcl(
            path.parent, data, categories=[category], result_file=path, mode=mode, names=names
        )
    return [sample for samples in per_category.values() for sample in samples]


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
