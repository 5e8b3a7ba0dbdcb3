"""BFCL's public files in ``../shared/data/bfcl``, parsed once per test process.

Several conformance files build their cases from the same questions, possible
answers and glyphh-ada results (35 categories, some 40,000 JSON lines): each file
is read the first time a test asks for it and the parsed rows are shared after that.
They are shared, so callers read them and never change them; the case builders
copy what they vary.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tooleval.benchmarks.bfcl.reader import CATEGORIES, read_jsonl

#: The public model whose results the cases start from.
MODEL = "glyphh-ada-1.1"


@dataclass(frozen=True)
class CategoryFiles:
    """One category's questions, its ground truth by id and MODEL's results by id."""

    questions: list[dict[str, Any]]
    answers: dict[str, Any]  # empty for (ir)relevance categories, which have none
    results: dict[str, Any]  # empty when MODEL has no result file for the category


@functools.cache
def category_files(bfcl_dir: Path, category: str) -> CategoryFiles:
    """The parsed files of ``category`` under ``bfcl_dir`` (read once per process)."""
    questions = read_jsonl(bfcl_dir / "data" / f"BFCL_v4_{category}.json")
    answers: dict[str, Any] = {}
    if CATEGORIES[category].kind not in ("irrelevance", "relevance"):
        path = bfcl_dir / "possible_answer" / f"BFCL_v4_{category}.json"
        answers = {a["id"]: a["ground_truth"] for a in read_jsonl(path)}
    result_path = bfcl_dir / "results" / MODEL / f"BFCL_v4_{category}_result.json"
    results = (
        {r["id"]: r["result"] for r in read_jsonl(result_path)} if result_path.is_file() else {}
    )
    return CategoryFiles(questions, answers, results)
