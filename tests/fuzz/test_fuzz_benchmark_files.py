"""Fuzz every benchmark reader through its record, on whole files as other tools write them.

Seeds near real files (tau-bench runs with a crash record and react text
actions, a tau2 results object, API-Bank rows from other graders, Seal-Tools
and NESTFUL records) are mutated, truncated, nested deep or replaced with
binary. A reader returns one Sample per record (an unreadable one carries its
reason) or refuses the file with a ToolEvalError that says something; nothing
else escapes, no record is dropped, and detection never raises.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.fuzz.support import JSON, fuzz_settings, mutated

from tooleval.benchmarks import unreadable_reason
from tooleval.benchmarks.detect import detect_benchmark, detection_problem
from tooleval.benchmarks.score_format import benchmark_samples
from tooleval.errors import ToolEvalError
from tooleval.model import Sample

TAU_RUN = {
    "task_id": 0,
    "trial": 0,
    "reward": 1.0,
    "info": {"task": {"actions": [{"name": "cancel_pending_order", "kwargs": {"order_id": "#1"}}]}},
    "traj": [
        {"role": "user", "content": "cancel"},
        {
            "role": "assistant",
            "content": 'Thought: ok\nAction: {"name": "cancel_pending_order", '
            '"arguments": {"order_id": "#1"}}',
        },
        {"role": "user", "content": "API output: done"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c", "function": {"name": "think", "arguments": "{}"}}],
        },
    ],
}
TAU_CRASH = {"task_id": 1, "trial": 0, "info": {"error": "boom", "traceback": "..."}, "traj": []}
TAU2 = {
    "info": {"environment_info": {"domain_name": "retail"}},
    "tasks": [
        {
            "id": "t",
            "evaluation_criteria": {
                "actions": [{"name": "refund", "arguments": {"o": 1}, "compare_args": ["o"]}],
                "acceptable_outcomes": [{"actions": [], "nl_assertions": ["x"], "reward": 1}],
            },
        }
    ],
    "simulations": [
        {
            "id": "s",
            "task_id": "t",
            "termination_reason": "agent_stop",
            "messages": [
                {"role": "assistant", "tool_calls": [{"name": "refund", "arguments": {"o": 1}}]}
            ],
        }
    ],
}
APIBANK = [
    {
        "file": "a.jsonl",
        "id": 0,
        "pred": "API-Request: [A(x='1')]",
        "expected_output": "[A(x='1')]",
    },
    {"id": 1, "gold": {"tool_name": "A", "arguments": '{"x": 1}'}, "prediction": [{"name": "A"}]},
]
SEAL_GOLD = [{"api": "f", "parameters": {"a": 1}, "responses": ["API_call_0"]}]
SEAL = [  # the official pred file: the prediction with its gold conversation
    {
        "id": "x-easy-0",
        "predict": [SEAL_GOLD],
        "gold_data": {"conversations": [{"value": "q"}, {"value": repr(SEAL_GOLD)}]},
    },
    {"id": "x-easy-1", "predict": ["no calls here"], "gold_data": {"conversations": []}},
]
NESTFUL = [
    {
        "sample_id": 0,
        "input": "q",
        "output": [{"name": "f", "arguments": {"a": 1}, "label": "var1"}],
        "generated_text": '[{"name": "f", "arguments": {"a": 1}, "label": "var1"}]',
    }
]

SEEDS: dict[str, list[Any]] = {
    "tau-bench": [[TAU_RUN, TAU_CRASH]],
    "tau2": [TAU2],
    "api-bank": [APIBANK, {"results": APIBANK}],
    "seal-tools": [SEAL],
    "nestful": [NESTFUL],
}


def _deep(levels: int) -> str:
    return "[" * levels + "]" * levels


def _files(name: str) -> st.SearchStrategy[bytes]:
    seeds = SEEDS[name]
    texts = st.one_of(
        st.sampled_from(seeds).map(json.dumps),
        mutated(seeds).map(json.dumps),
        JSON.map(json.dumps),
        st.lists(mutated(seeds), min_size=1, max_size=3).map(
            lambda values: "\n".join(json.dumps(v) for v in values)
        ),
        st.just(_deep(5000)),
    )
    whole = texts.map(str.encode)
    cut = (
        st.sampled_from(seeds)
        .map(lambda s: json.dumps(s, indent=1).encode())
        .flatmap(lambda b: st.integers(0, len(b)).map(lambda n: b[:n]))
    )
    return st.one_of(whole, cut, st.binary(max_size=64))


def _records(data: bytes) -> int | None:
    """How many records a JSON list file holds (None when it is not one)."""
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):
        return None
    return len(value) if isinstance(value, list) else None


@pytest.mark.parametrize("name", sorted(SEEDS))
@fuzz_settings(60)
@given(data=st.data())
def test_benchmark_reader_reads_or_refuses_whole_files(tmp_path_factory, name, data):
    blob = data.draw(_files(name))
    path = Path(tmp_path_factory.mktemp("fuzz_bench")) / "file.json"
    path.write_bytes(blob)
    assert detect_benchmark(path) in (
        None,
        "api-bank",
        "nestful",
        "seal-tools",
        "tau-bench",
        "tau2",
    )
    problem = detection_problem(path)
    assert problem is None or problem.startswith("looks like")
    try:
        samples = [sample for _, sample in benchmark_samples(path, name)]
    except ToolEvalError as exc:
        assert str(exc).strip()
        return
    for sample in samples:
        assert isinstance(sample, Sample)
        reason = unreadable_reason(sample)
        assert reason is None or reason.strip()
        if reason is None:
            assert all(isinstance(c.name, str) for c in sample.actual_calls())
    count = _records(blob)
    if name in ("tau-bench", "api-bank") and count is not None:
        assert len(samples) == count  # one row per record: none dropped


def test_the_seeds_score_as_real_files(tmp_path):
    for name, seeds in SEEDS.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(seeds[0]))
        samples = [s for _, s in benchmark_samples(path, name)]
        assert samples and any(unreadable_reason(s) is None for s in samples), name
