"""Fuzzing `dataset check` and `run --dry-run`: random bytes, random JSON, mutated real rows.

Whatever the file holds, each command ends with exit 0 or 2 and at most one
error line; it never raises (a traceback) and never calls the agent (the
dry run's connector points at a closed port).
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tooleval.cli.main import main

REAL_ROWS = [
    {"id": "c1", "input": "cancel order 4471", "expected_tools": ["lookup_order", "cancel_order"]},
    {
        "id": "r1",
        "input": "refund 30",
        "expected_tools": [{"name": "issue_refund", "args": {"order_id": "4471", "amount": 30}}],
        "category": "refund",
    },
]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)

SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _plan(folder: Path, dataset: str) -> Path:
    plan = folder / "plan.yaml"
    plan.write_text(
        yaml.safe_dump(
            {
                "dataset": dataset,
                "connector": {
                    "url": "http://127.0.0.1:9/agent",
                    "response": {"tools_called": "$.calls[*].name"},
                },
                "metrics": ["tool_correctness"],
            }
        )
    )
    return plan


def _both(folder: Path, name: str, capsys) -> None:
    path = folder / name
    for argv in (
        ["dataset", "check", str(path)],
        ["run", str(_plan(folder, name)), "--dry-run", "--store", str(folder / "s.db")],
    ):
        code = main(argv)
        err = capsys.readouterr().err
        assert code in (0, 2), (argv, code, err)
        assert "Traceback" not in err
        if argv[0] == "run" and code == 2:
            assert "problem:" in err or err.count("\n") == 1, err
    assert not (folder / "s.db").exists()  # a dry run stores nothing


@SETTINGS
@given(data=st.binary(max_size=300), suffix=st.sampled_from([".jsonl", ".csv", ".json", ".tsv"]))
def test_random_bytes(tmp_path_factory, capsys, data, suffix):
    folder = tmp_path_factory.mktemp("fuzz")
    (folder / f"d{suffix}").write_bytes(data)
    _both(folder, f"d{suffix}", capsys)


@SETTINGS
@given(rows=st.lists(json_values, max_size=5))
def test_random_json_rows(tmp_path_factory, capsys, rows):
    folder = tmp_path_factory.mktemp("fuzz")
    (folder / "d.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows) or "\n")
    _both(folder, "d.jsonl", capsys)


@SETTINGS
@given(
    key=st.sampled_from(["id", "input", "expected_tools", "category", "extra"]),
    value=json_values,
    which=st.integers(0, 1),
)
def test_mutated_real_rows(tmp_path_factory, capsys, key, value, which):
    folder = tmp_path_factory.mktemp("fuzz")
    rows = [dict(r) for r in REAL_ROWS]
    rows[which][key] = value
    (folder / "d.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    _both(folder, "d.jsonl", capsys)
