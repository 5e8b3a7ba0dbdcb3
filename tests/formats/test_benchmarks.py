"""`tooleval score FILE --format ...`: benchmark files read by their importers.

Also the detection property: whatever :func:`detect_benchmark` names, that
importer reads the file (never "detected as X, then refused by X").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tooleval.benchmarks import format_names
from tooleval.benchmarks.detect import detect_benchmark, detect_benchmark_value
from tooleval.benchmarks.score_format import (
    benchmark_samples,
    default_metric,
    resolve_score_format,
)
from tooleval.cli.main import main
from tooleval.errors import ConfigError, FormatError, ToolEvalError

TAU_RUN = {
    "task_id": 0,
    "trial": 0,
    "reward": 1.0,
    "info": {
        "task": {"actions": [{"name": "cancel_reservation", "kwargs": {"reservation_id": "R1"}}]},
        "reward_info": {"info": {"r_actions": 1.0}},
    },
    "traj": [
        {"role": "user", "content": "cancel R1"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {
                        "name": "cancel_reservation",
                        "arguments": '{"reservation_id": "R1"}',
                    },
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "name": "cancel_reservation", "content": "{}"},
    ],
}
TAU2 = {
    "tasks": [
        {
            "id": "1",
            "evaluation_criteria": {
                "actions": [
                    {
                        "action_id": "1_0",
                        "name": "get_user_details",
                        "arguments": {"user_id": "u1"},
                        "compare_args": None,
                    }
                ]
            },
        }
    ],
    "simulations": [
        {
            "id": "s1",
            "task_id": "1",
            "trial": 0,
            "termination_reason": "max_steps",
            "messages": [
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": "c", "name": "get_user_details", "arguments": {"user_id": "u1"}}
                    ],
                }
            ],
        }
    ],
}
APIBANK = {
    "file": "AddAlarm-level-1-1.jsonl",
    "id": 4,
    "gold": {"api_name": "AddAlarm", "param_dict": {"token": "t", "time": "2021-10-14 08:00:00"}},
    "pred": "API-Request: [AddAlarm(token='t', time='2021-10-14 08:00:00')]",
}


def _score(capsys, *argv):
    code = main(["score", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines() if line.strip()], err


def test_tau_bench_file_is_detected_and_scored(tmp_path, capsys):
    path = tmp_path / "runs.json"
    path.write_text(json.dumps([TAU_RUN], indent=2))
    assert detect_benchmark(path) == "tau-bench"
    code, rows, _ = _score(capsys, path)
    assert code == 0 and rows[0]["metric"] == "tau_bench_actions" and rows[0]["passed"]
    assert rows[0]["id"] == "0-0"


def test_tau2_file_uses_tau2_termination_rule(tmp_path, capsys):
    path = tmp_path / "results.json"
    path.write_text(json.dumps(TAU2))
    code, rows, _ = _score(capsys, path, "--format", "tau2")
    assert code == 0 and rows[0]["metric"] == "tau2_actions" and rows[0]["score"] == 0.0
    code, rows, _ = _score(capsys, path, "--option", "termination=ignore")
    assert rows[0]["passed"] is True


def test_api_bank_default_options_and_overrides(tmp_path, capsys):
    row = {
        **APIBANK,
        "gold": {"api_name": "BookHotel", "param_dict": {"room_count": 2}},
        "pred": "API-Request: [BookHotel(room_count=2)]",
    }
    path = tmp_path / "graded.jsonl"
    path.write_text(json.dumps(row) + "\n")
    code, rows, _ = _score(capsys, path)
    assert code == 0 and rows[0]["passed"] is True
    assert rows[0]["params"]["args"] == "numeric_text"
    code, rows, _ = _score(capsys, path, "--format", "api-bank", "--option", "args=exact")
    assert rows[0]["passed"] is False
    code, rows, _ = _score(capsys, path, "--format", "api-bank", "--metric", "tool_call_f1")
    assert rows[0]["metric"] == "tool_call_f1"


def test_canonical_rows_still_need_a_metric(tmp_path, capsys):
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps({"tools_called": [], "expected_tools": []}) + "\n")
    code, _, err = _score(capsys, path)
    assert code == 2 and "--metric is required" in err and err.count("\n") == 1
    code, rows, _ = _score(capsys, path, "--format", "jsonl", "--metric", "tool_correctness")
    assert code == 0 and rows[0]["score"] == 1.0
    array = tmp_path / "rows.json"
    array.write_text(json.dumps([{"tools_called": [], "expected_tools": []}]))
    code, rows, _ = _score(capsys, array, "--format", "json", "--metric", "tool_correctness")
    assert code == 0 and rows[0]["score"] == 1.0


def test_usage_errors_are_one_line(tmp_path, capsys):
    path = tmp_path / "runs.json"
    path.write_text(json.dumps([TAU_RUN]))
    code, _, err = _score(capsys, path, "--format", "xml")
    assert code == 2 and "unknown format 'xml'" in err
    code, _, err = _score(capsys, path, "--format", "bfcl")
    assert code == 2 and "--data" in err
    bfcl = tmp_path / "BFCL_v3_simple_result.json"
    bfcl.write_text("")
    assert detect_benchmark(bfcl) == "bfcl"
    code, _, err = _score(
        capsys, tmp_path / "not_bfcl.json", "--format", "bfcl", "--data", tmp_path
    )
    assert code == 2
    broken = tmp_path / "broken.json"
    broken.write_text('{"tasks": [], "simulations": [{"task_id": "9", "messages": []}]}')
    code, _, err = _score(capsys, broken)
    assert code == 2 and "task '9'" in err and err.count("\n") == 1


def test_stdin_cannot_be_a_benchmark():
    with pytest.raises(ConfigError, match="not standard input"):
        resolve_score_format("-", format="tau2")


def test_defaults_per_format():
    for fmt in format_names():
        found = default_metric(fmt)
        assert (found is None) is (fmt in ("jsonl", "json"))
    with pytest.raises(ConfigError):
        default_metric("csv")


def test_bfcl_route_uses_the_bfcl_reader(shared_data, capsys):
    folder = shared_data / "bfcl" / "results" / "glyphh-ada-1.1"
    result = next(folder.glob("BFCL_v*_simple_python_result.json"), None)
    if result is None:
        pytest.skip("no simple_python result file in ../shared/data/bfcl")
    assert detect_benchmark(result) == "bfcl"
    code, rows, _ = _score(capsys, result, "--data", shared_data / "bfcl")
    assert code == 0 and rows and all(r["metric"] == "bfcl_ast" for r in rows)


# ---------------------------------------------------------------- detection property

_pieces = st.fixed_dictionaries(
    {},
    optional={
        "tasks": st.just([]) | st.just([{"id": "1"}]) | st.just("x"),
        "simulations": st.just([]) | st.just([{"task_id": "1", "messages": []}]) | st.just(3),
        "traj": st.just([]) | st.just([{"role": "user", "content": "hi"}]) | st.just("x"),
        "info": st.just({}) | st.just({"task": {"actions": []}}) | st.just(None),
        "task_id": st.integers(0, 3),
        "pred": st.just("[A(x='1')]") | st.just(None) | st.just(5),
        "gold": st.just({"api_name": "A"}) | st.just("no call") | st.just([1]),
        "expected_output": st.just("API-Request: [A()]"),
        "tools_called": st.just([]),
        "role": st.just("user"),
        "content": st.just("hi"),
    },
)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.one_of(_pieces, st.lists(_pieces, min_size=1, max_size=3)), st.booleans())
def test_detect_never_names_a_benchmark_its_importer_refuses(tmp_path_factory, value, lines):
    path = Path(tmp_path_factory.mktemp("bench")) / "file.json"
    if lines and isinstance(value, list):
        path.write_text("\n".join(json.dumps(v) for v in value) + "\n")
    else:
        path.write_text(json.dumps(value))
    name = detect_benchmark(path)
    if name is None:
        return
    assert name in format_names()
    try:
        list(benchmark_samples(path, name))
    except FormatError as exc:
        # The file has the format's shape; a record in it is wrong, and the error says where.
        assert exc.field, f"detected {name}, then refused without naming a field: {exc}"
    except ToolEvalError as exc:
        # only a JSONL line that is not JSON may stop a detected file, and it is named
        assert "line " in str(exc), f"detected {name}, then refused as a whole: {exc}"


def test_detect_value_examples():
    assert detect_benchmark_value({"tasks": [], "simulations": []}) == "tau2"
    assert detect_benchmark_value([TAU_RUN]) == "tau-bench"
    assert detect_benchmark_value(APIBANK) == "api-bank"
    assert detect_benchmark_value({**APIBANK, "tools_called": []}) is None
    assert detect_benchmark_value([{"role": "user", "content": "hi", "turn_idx": 0}]) is None
    assert detect_benchmark_value("text") is None


def test_a_json_document_is_named_as_such(tmp_path, capsys):
    doc = tmp_path / "rows.jsonl"
    doc.write_text('{"id": "a",\n "tools_called": [],\n "expected_tools": []}\n')
    code, _, err = _score(capsys, doc, "--metric", "tool_correctness")
    assert code == 2 and "this is a JSON document, not JSONL" in err and err.count("\n") == 1
    truncated = tmp_path / "truncated.jsonl"
    truncated.write_text('{"id": "a", "tools_called": \n{"id": "b"}\n')
    code, _, err = _score(capsys, truncated, "--metric", "tool_correctness")
    assert code == 2 and "row 1: invalid JSON" in err  # a broken row stays a broken row
    rows = tmp_path / "ok.jsonl"
    rows.write_text('{"id": "a", "tools_called": [], "expected_tools": []}\n' * 2)
    code, out, _ = _score(capsys, rows, "--metric", "tool_correctness")
    assert code == 0 and len(out) == 2
