"""API-Bank: graded prediction rows (one gold API call each) scored as API-Bank compares calls.

Reader :mod:`~tooleval.benchmarks.api_bank.reader`; the default metric is
the generic ``tool_correctness`` with ``args="numeric_text"`` (API-Bank's
typed comparison), so this benchmark declares no metric of its own.

>>> BENCHMARK.detect({"pred": "[A()]", "expected_output": "[A()]"})
True
>>> BENCHMARK.detect({"results": [{"pred": "[A()]", "gold": {"tool_name": "A"}}]})
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tooleval.benchmarks._shape import first_record, is_canonical
from tooleval.benchmarks.base import Benchmark, lazy

__all__ = ["BENCHMARK"]

_GOLD = ("ground_truth", "gold", "expected_output")
_PRED = ("pred", "prediction")


def _is_row(row: Mapping[str, Any]) -> bool:
    # gold inline, or file + id into API-Bank's dialogue files (evaluator_by_json's input)
    return (
        any(k in row for k in _PRED)
        and (any(k in row for k in _GOLD) or ("file" in row and "id" in row))
        and not is_canonical(row)
    )


def _detect(value: Any) -> bool:
    first = first_record(value)
    if first is None:
        return False
    if _is_row(first):
        return True
    if isinstance(value, Mapping):  # an object holding one list of rows ({"results": [...]})
        lists = [v for v in value.values() if isinstance(v, list) and v]
        return len(lists) == 1 and (row := first_record(lists[0])) is not None and _is_row(row)
    return False


BENCHMARK = Benchmark(
    name="api-bank",
    title="API-Bank",
    aliases=("apibank",),
    description="graded API-Bank rows (JSONL or JSON)",
    read=lazy("tooleval.benchmarks.api_bank.reader:load_apibank", data="dialogues"),
    default_metric="tool_correctness",
    default_options={"args": "numeric_text", "exact_match": True},
    detect=_detect,
    jsonl_rows=True,
    data="DIR: API-Bank's dialogue folder, for rows without their gold call",
    docs="docs/benchmarks/api-bank.md",
)
