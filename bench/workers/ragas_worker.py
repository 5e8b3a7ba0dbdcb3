"""ragas 0.4.3 ToolCallAccuracy, legacy and collections APIs (runs in the main .venv).

python bench/workers/ragas_worker.py ROWS.jsonl
"""

from __future__ import annotations

import os
import sys
import warnings

os.environ["RAGAS_DO_NOT_TRACK"] = "true"  # before ragas is imported

from _timing import arate, emit, fail, rate, read_rows  # noqa: E402


def main(path: str) -> None:
    warnings.simplefilter("ignore")  # ragas warns on every length mismatch
    import ragas
    from ragas.dataset_schema import MultiTurnSample
    from ragas.messages import AIMessage, HumanMessage, ToolCall
    from ragas.metrics._tool_call_accuracy import ToolCallAccuracy as LegacyAccuracy
    from ragas.metrics.collections import ToolCallAccuracy as CollectionsAccuracy

    version = {"version": ragas.__version__}
    for calls, rows in sorted(read_rows(path).items()):
        samples = [
            MultiTurnSample(
                user_input=[
                    HumanMessage(content=r["input"]),
                    AIMessage(content="", tool_calls=[ToolCall(**c) for c in r["tools_called"]]),
                ],
                reference_tool_calls=[ToolCall(**c) for c in r["expected_tools"]],
            )
            for r in rows
        ]
        kw = [
            {"user_input": s.user_input, "reference_tool_calls": s.reference_tool_calls}
            for s in samples
        ]
        legacy = LegacyAccuracy()
        collections = CollectionsAccuracy()
        variants = [
            ("legacy multi_turn_score (sync)", rate, legacy.multi_turn_score, samples),
            ("legacy multi_turn_ascore (1 loop)", arate, legacy.multi_turn_ascore, samples),
            ("collections score (sync)", rate, lambda k, m=collections: m.score(**k), kw),
            ("collections ascore (1 loop)", arate, lambda k, m=collections: m.ascore(**k), kw),
        ]
        for variant, timer, score_one, items in variants:
            try:
                emit("ragas", variant, calls, timer(score_one, items), **version)
            except Exception as exc:  # a peer failing must not stop the others
                fail("ragas", variant, exc)


if __name__ == "__main__":
    main(sys.argv[1])
