"""What the fuzz tests share: seed rows, JSON strategies, mutations and a CLI runner.

The suite is bounded (``FUZZ`` settings: a fixed number of examples, derandomized
so ``make test`` sees the same inputs on every machine, no example database) and
checks three rules at every entry point: no traceback (only ToolEvalError from
the library, only exit 0/1/2 with one line on stderr from the CLI), no score
outside [0, 1], and no silent drop (every input row gives one output row, or the
command stops with a named error).
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from tooleval.cli.main import main

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "formats" / "fixtures"


def fuzz_settings(examples: int) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def _jsonl(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def seed_rows() -> list[dict[str, Any]]:
    """Canonical rows from examples/ and the format fixtures."""
    rows = _jsonl(REPO / "examples" / "support_agent.jsonl")
    rows += _jsonl(FIXTURES / "canonical_rows.jsonl")
    return [r for r in rows if isinstance(r, dict)]


def seed_conversations() -> list[Any]:
    """One real conversation per supported format (the importer fixtures)."""
    out = []
    for path in sorted(FIXTURES.glob("*.json")):
        out.append(json.loads(path.read_text()))
    return out


OTLP_REQUEST = {
    "resourceSpans": [
        {
            "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "a"}}]},
            "scopeSpans": [
                {
                    "spans": [
                        {
                            "traceId": "ab" * 16,
                            "spanId": "cd" * 8,
                            "name": "execute_tool lookup",
                            "startTimeUnixNano": "1",
                            "endTimeUnixNano": "2",
                            "attributes": [
                                {
                                    "key": "gen_ai.operation.name",
                                    "value": {"stringValue": "execute_tool"},
                                },
                                {"key": "gen_ai.tool.name", "value": {"stringValue": "lookup"}},
                                {
                                    "key": "gen_ai.conversation.id",
                                    "value": {"stringValue": "s1"},
                                },
                            ],
                        }
                    ]
                }
            ],
        }
    ]
}

# Keys the importers look for, so random objects reach past the first check.
KEYS = st.sampled_from(
    [
        "id",
        "input",
        "messages",
        "messages_format",
        "tools_called",
        "expected_tools",
        "reference",
        "reference_topics",
        "metadata",
        "output",
        "category",
        "role",
        "content",
        "tool_calls",
        "function",
        "name",
        "arguments",
        "args",
        "type",
        "parts",
        "functionCall",
        "tool_use",
        "input_schema",
        "user_input",
        "calls",
        "before",
        "groups",
        "order",
        "jsonrpc",
        "method",
        "params",
        "resourceSpans",
        "scopeSpans",
        "spans",
        "attributes",
        "key",
        "value",
        "stringValue",
        "traceId",
        "spanId",
    ]
) | st.text(max_size=6)

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=12)
    | st.sampled_from(["user", "assistant", "tool", "function", "", "{}", "[", "nan", "None"])
)

JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=24,
)


@st.composite
def mutated(draw: st.DrawFn, seeds: list[Any]) -> Any:
    """A seed value with a few random edits: a subtree replaced, removed, retyped or nested."""
    value = json.loads(json.dumps(draw(st.sampled_from(seeds))))
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        value = _mutate_once(draw, value)
    return value


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            out += _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            out += _paths(child, (*prefix, index))
    return out


def _mutate_once(draw: st.DrawFn, value: Any) -> Any:
    path = draw(st.sampled_from(_paths(value)))
    action = draw(st.sampled_from(["replace", "delete", "wrap", "stringify", "deepen"]))
    if not path:
        if action == "wrap":
            return [value]
        return draw(JSON) if action == "replace" else value
    parent = value
    for step in path[:-1]:
        parent = parent[step]
    key = path[-1]
    child = parent[key]
    if action == "delete":
        del parent[key]
    elif action == "replace":
        parent[key] = draw(JSON)
    elif action == "wrap":
        parent[key] = [child]
    elif action == "stringify":
        parent[key] = json.dumps(child)
    else:
        depth = draw(st.sampled_from([5, 99, 150, 400]))
        for _ in range(depth):
            child = [child]
        parent[key] = child
    return value


class Captured:
    """Exit code, stdout and stderr of one in-process CLI call."""

    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.out, self.err = code, out, err

    def check_clean(self, allowed: tuple[int, ...] = (0, 2)) -> None:
        assert "Traceback" not in self.err, self.err
        assert self.code in allowed, (self.code, self.err)
        if self.code == 2:
            lines = self.err.strip().splitlines()
            assert len(lines) == 1, self.err


def run_cli(argv: list[str]) -> Captured:
    """Run ``tooleval ARGV`` in this process with stdout/stderr captured."""
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    err = io.StringIO()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse usage errors
        code = exc.code if isinstance(exc.code, int) else 2
    finally:
        sys.stdout, sys.stderr = saved
    out.flush()
    return Captured(code, out.buffer.getvalue().decode("utf-8", "replace"), err.getvalue())


def check_result(result: dict[str, Any]) -> None:
    """A result row: score in [0, 1] or null (then passed is null too)."""
    score = result["score"]
    if score is None:
        assert result["passed"] is None and result["reason"], result
    else:
        assert isinstance(score, int | float) and 0.0 <= score <= 1.0, result
        assert result["passed"] in (True, False), result
