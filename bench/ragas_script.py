"""A ragas user's end-to-end script: score a JSONL file with ToolCallAccuracy, write JSONL.

What someone scoring tool calls with ragas (0.4.x) writes without tooleval:
read each row, build ragas messages, await ``ToolCallAccuracy.ascore`` from
``ragas.metrics.collections`` for every row in one event loop, and write one
JSON line per row (id, score, reason). ``bench/kernel_score.py`` runs it side
by side with ``tooleval score`` on the same rows.

    python bench/ragas_script.py ROWS.jsonl OUT.jsonl
"""

from __future__ import annotations

import asyncio
import os
import sys
import warnings

os.environ["RAGAS_DO_NOT_TRACK"] = "true"  # before ragas is imported


async def score_file(source: str, target: str) -> int:
    import orjson
    from ragas.messages import AIMessage, HumanMessage, ToolCall
    from ragas.metrics.collections import ToolCallAccuracy

    metric = ToolCallAccuracy()
    count = 0
    with open(source, "rb") as rows, open(target, "wb") as out:
        for line in rows:
            if not line.strip():
                continue
            row = orjson.loads(line)
            user_input = [
                HumanMessage(content=row.get("input") or ""),
                AIMessage(
                    content="", tool_calls=[ToolCall(**c) for c in row.get("tools_called") or []]
                ),
            ]
            reference = [ToolCall(**c) for c in row.get("expected_tools") or []]
            result = await metric.ascore(user_input=user_input, reference_tool_calls=reference)
            out.write(
                orjson.dumps(
                    {"id": row.get("id"), "score": result.value, "reason": result.reason},
                    option=orjson.OPT_APPEND_NEWLINE,
                )
            )
            count += 1
    return count


def main() -> None:
    warnings.simplefilter("ignore")  # ragas warns on every length mismatch
    source, target = sys.argv[1], sys.argv[2]
    print(asyncio.run(score_file(source, target)))


if __name__ == "__main__":
    main()
