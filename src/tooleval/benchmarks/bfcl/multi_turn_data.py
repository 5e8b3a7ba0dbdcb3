"""BFCL multi-turn rows as Samples, and the check that the data is the simulated APIs' version.

A multi-turn Sample carries what the replay needs in ``metadata["bfcl"]["multi_turn"]``
(the question entry with ``initial_config`` and ``involved_classes``, the
ground truth per turn, the model's result and the decoding mode); ``bfcl_ast``
scores it by replay (:func:`~tooleval.benchmarks.bfcl.multi_turn.multi_turn_result`).

The simulated APIs come from the installed ``bfcl-eval``; an entry whose
question or ground truth differs from that package's own copy was written for
another version, and is an unreadable row saying so, never scored against
the wrong APIs. A data folder without a multi-turn category's files uses the
package's.

>>> MULTI_TURN_CATEGORIES[0]
'multi_turn_base'
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from tooleval.model import Sample

__all__ = ["MULTI_TURN_CATEGORIES", "multi_turn_sample", "package_data", "version_mismatch"]

MULTI_TURN_CATEGORIES = (
    "multi_turn_base",
    "multi_turn_long_context",
    "multi_turn_miss_func",
    "multi_turn_miss_param",
)
_COMPARED = ("initial_config", "involved_classes", "question")


@lru_cache(maxsize=8)
def package_data(filename: str, answers: bool) -> dict[str, dict[str, Any]]:
    """Rows by id of one of bfcl-eval's own data files ({} when it has none)."""
    try:
        import bfcl_eval
    except ImportError:
        return {}
    root = Path(bfcl_eval.__file__).parent / "data"
    path = root / "possible_answer" / filename if answers else root / filename
    if not path.is_file():
        return {}
    rows = (
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    )
    return {str(row.get("id")): row for row in rows}


def version_mismatch(
    filename: str, question: Mapping[str, Any], answer: Mapping[str, Any]
) -> str | None:
    """Why this entry is not the installed bfcl-eval's (None when it is)."""
    from tooleval.benchmarks.bfcl.multi_turn_env import api_version

    entry_id = str(question.get("id"))
    theirs = package_data(filename, False).get(entry_id)
    truth = package_data(filename, True).get(entry_id)
    version = api_version()
    if theirs is None or truth is None:
        return f"bfcl-eval {version} has no entry {entry_id} in {filename}"
    for key in _COMPARED:
        if question.get(key) != theirs.get(key):
            return (
                f"{key} differs from bfcl-eval {version}'s {filename}: another version of the data"
            )
    if answer.get("ground_truth") != truth.get("ground_truth"):
        return f"ground_truth differs from bfcl-eval {version}'s: another version of the data"
    return None


def multi_turn_sample(
    question: Mapping[str, Any],
    answer: Mapping[str, Any],
    result: Mapping[str, Any],
    *,
    category: str,
    mode: str,
) -> Sample:
    """One multi-turn entry as a Sample scored by replay."""
    from tooleval.benchmarks.bfcl.multi_turn import multi_turn_mode

    turns = result.get("result")
    entry = {k: question[k] for k in ("id", "initial_config", "involved_classes") if k in question}
    meta = {
        "multi_turn": {
            "entry": entry,
            "ground_truth": answer.get("ground_truth"),
            "result": turns,
            "mode": multi_turn_mode(turns, mode),
        }
    }
    return Sample(id=str(question.get("id")), category=category, metadata={"bfcl": meta})
