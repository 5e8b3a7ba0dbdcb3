"""``tooleval.evaluate``: datasets of every shape, several metrics, judges, one result object.

Judged metrics run against a real OpenAI-compatible server on 127.0.0.1
(``tests/judge_server.py``) and the bundled local model (``llm`` marker). The
rows and lines are compared with what ``tooleval score`` writes for the same
file, so the two entry points cannot drift apart.
"""

from __future__ import annotations

import asyncio
import json
import sys

import pytest
from tests.judge_server import RECORDED, JudgeServer

import tooleval
from tooleval.cli.main import main
from tooleval.errors import ConfigError, DatasetError, InputError, MissingExtraError
from tooleval.model import Sample
from tooleval.stats import wilson_interval

ROWS = [
    {"id": "ok", "tools_called": ["lookup_order", "cancel_order"],
     "expected_tools": ["lookup_order", "cancel_order"]},
    {"id": "half", "tools_called": ["lookup_order"],
     "expected_tools": ["lookup_order", "cancel_order"]},
    {"id": "extra", "tools_called": [{"name": "lookup_order", "args": {"id": 1}}, "refund"],
     "expected_tools": [{"name": "lookup_order", "args": {"id": 1}}]},
    {"id": "no reference", "tools_called": ["lookup_order"], "expected_tools": None},
]  # fmt: skip
METRICS = ["tool_correctness", ("tool_call_f1", {"args": "ignore"})]


def _jsonl(tmp_path, rows, name="rows.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_rows_give_per_row_results_and_per_metric_summaries():
    result = tooleval.evaluate(ROWS, METRICS)
    assert result.metrics == ("tool_correctness", "tool_call_f1")
    assert [(r.row_id, r.metric) for r in result][:2] == [
        ("ok", "tool_correctness"),
        ("ok", "tool_call_f1"),
    ]
    assert len(result) == 8
    assert result["tool_correctness"][0] == 1.0 and result["tool_correctness"][3] is None
    unscored = [r for r in result if r.row_id == "no reference"]
    assert all(r.score is None and r.passed is None and r.unscored_reason for r in unscored)
    assert all(r.unscored_reason is None for r in result if r.row_id == "ok")
    summary = result.summaries["tool_correctness"]
    scores = [s for s in result["tool_correctness"] if s is not None]
    passed = sum(1 for r in result if r.metric == "tool_correctness" and r.passed)
    assert (summary.n, summary.unscored) == (4, 1)
    assert (summary.passed, summary.failed) == (passed, 3 - passed)
    assert summary.pass_rate == pytest.approx(passed / 3)
    expected = wilson_interval(passed, 3)
    assert summary.interval == pytest.approx((expected.low, expected.high))
    assert summary.mean_score == pytest.approx(sum(scores) / 3)
    assert result.rows[0].diagnosis is result.rows[0].result.diagnosis
    assert result.judge_usage is None
    with pytest.raises(KeyError, match="did you mean 'tool_call_f1'"):
        result["tool_call_f2"]


def test_a_readable_repr():
    text = repr(tooleval.evaluate(ROWS, METRICS))
    lines = text.splitlines()
    assert lines[0] == "EvaluationResult(4 rows x 2 metrics)"
    assert lines[1].startswith("  tool_correctness: pass rate ")
    assert "1 unscored of 4" in lines[1] and "mean score" in lines[1]
    assert len(lines) == 3


def test_the_lines_are_those_tooleval_score_writes(tmp_path):
    data = _jsonl(tmp_path, ROWS)
    out = tmp_path / "score.jsonl"
    args = ["score", str(data), "--metric", "tool_correctness", "--metric", "tool_call_f1"]
    assert main([*args, "--option", "tool_call_f1.args=ignore", "-o", str(out)]) == 0
    result = tooleval.evaluate(data, METRICS)
    assert result.to_jsonl() == out.read_bytes()
    assert result.to_dicts() == [json.loads(line) for line in out.read_text().splitlines()]
    written = result.write_jsonl(tmp_path / "new" / "evaluate.jsonl")
    assert written.read_bytes() == out.read_bytes()
    with pytest.raises(InputError, match="directory"):
        result.write_jsonl(tmp_path)
    with pytest.raises(InputError):  # never over the dataset it read
        result.write_jsonl(data)
    assert json.loads(data.read_text().splitlines()[0]) == ROWS[0]


def test_csv_parquet_samples_and_dataframes_score_alike(tmp_path):
    pandas = pytest.importorskip("pandas")
    rows = [{k: v for k, v in row.items() if v is not None} for row in ROWS[:3]]
    base = tooleval.evaluate(rows, METRICS)
    frame = pandas.DataFrame(
        [
            {
                "id": r["id"],
                "tools_called": r["tools_called"],
                "gold": json.dumps(r["expected_tools"]),
            }
            for r in rows
        ]
    )
    frame["tools_called"] = frame["tools_called"].map(json.dumps)
    csv = tmp_path / "rows.csv"
    frame.to_csv(csv, index=False)
    by_csv = tooleval.evaluate(csv, METRICS, bind={"expected_tools": "gold"})
    assert [r.score for r in by_csv] == [r.score for r in base]
    parquet = tmp_path / "rows.parquet"
    frame.to_parquet(parquet)
    by_parquet = tooleval.evaluate(parquet, METRICS, bind={"expected_tools": "gold"})
    assert [r.score for r in by_parquet] == [r.score for r in base]
    by_frame = tooleval.evaluate(frame, METRICS, bind={"expected_tools": "gold"})
    assert [(r.row_id, r.score) for r in by_frame] == [(r.row_id, r.score) for r in base]
    samples = [tooleval.sample_from_row(row) for row in rows]
    assert [r.score for r in tooleval.evaluate(samples, METRICS)] == [r.score for r in base]


def test_a_dataframe_with_nan_cells_and_numpy_values():
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame(
        {
            "id": ["a", "b"],
            "tools_called": [["lookup_order"], ["lookup_order"]],
            "expected_tools": [["lookup_order"], float("nan")],
            "category": ["x", None],
        }
    )
    result = tooleval.evaluate(frame, "tool_correctness")
    assert result["tool_correctness"] == [1.0, None]  # NaN is no reference: unscored, not 0


def test_to_pandas_and_a_clear_error_without_pandas(monkeypatch):
    pytest.importorskip("pandas")
    result = tooleval.evaluate(ROWS, METRICS)
    frame = result.to_pandas()
    assert list(frame.columns)[:5] == ["id", "metric", "score", "passed", "reason"]
    assert len(frame) == 8 and frame["score"].isna().sum() == 2
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(MissingExtraError, match=r"tooleval\[pandas\]"):
        result.to_pandas()


def test_bad_datasets_are_errors_naming_the_row_or_column(tmp_path):
    with pytest.raises(InputError, match="dataset is empty"):
        tooleval.evaluate([], "tool_correctness")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    with pytest.raises(InputError, match="file is empty"):
        tooleval.evaluate(empty, "tool_correctness")
    with pytest.raises(InputError, match="row 2") as caught:
        tooleval.evaluate([ROWS[0], 42], "tool_correctness")
    assert "got int" in str(caught.value)
    lines = tmp_path / "lines.jsonl"
    lines.write_text(json.dumps(ROWS[0]) + "\n[1, 2]\n")
    with pytest.raises(InputError, match="row 2") as caught:
        tooleval.evaluate(lines, "tool_correctness")
    assert str(lines) in str(caught.value)
    lines.write_text(json.dumps(ROWS[0]) + "\n\n" + json.dumps({"tools_called": [{"name": 42}]}))
    with pytest.raises(InputError, match="row 3"):  # the file's line, blank lines counted
        tooleval.evaluate(lines, "tool_correctness")
    with pytest.raises(InputError, match="one dict"):
        tooleval.evaluate(ROWS[0], "tool_correctness")
    with pytest.raises(InputError, match="no such dataset file"):
        tooleval.evaluate(tmp_path / "missing.jsonl", "tool_correctness")
    with pytest.raises(InputError, match="column 'calls' looks like the agent's calls"):
        tooleval.evaluate([{"calls": ["a"], "expected_tools": ["a"]}], "tool_correctness")
    with pytest.raises(InputError, match="row 1"):
        tooleval.evaluate([{"tools_called": [{"name": 42}], "expected_tools": []}], "tool_call_f1")
    deep: dict = {}
    node = deep
    for _ in range(150):
        node["x"] = {}
        node = node["x"]
    with pytest.raises(InputError, match="row 1"):
        tooleval.evaluate(
            [{"tools_called": [], "expected_tools": [], "metadata": deep}], "tool_call_f1"
        )


def test_a_field_no_row_holds_names_the_likely_column():
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame({"tools_called": [["a"]], "gold_tools": [["a"]]})
    with pytest.raises(DatasetError) as caught:
        tooleval.evaluate(frame, "tool_correctness")
    message = str(caught.value)
    assert "needs 'expected_tools', but no row has it" in message
    assert "'gold_tools'" in message and "bind=" in message
    with pytest.raises(DatasetError, match="no column 'gold'"):
        tooleval.evaluate(frame, "tool_correctness", bind={"expected_tools": "gold"})


def test_bad_metrics_are_config_errors():
    with pytest.raises(ConfigError, match="did you mean 'tool_correctness'") as caught:
        tooleval.evaluate(ROWS, ["tool_call_f1", "tool_corectness"])
    assert "metrics[1]" in str(caught.value)
    with pytest.raises(ConfigError, match="given twice"):
        tooleval.evaluate(ROWS, ["tool_call_f1", ("tool_call_f1", {"args": "ignore"})])
    with pytest.raises(ConfigError, match="at least one metric"):
        tooleval.evaluate(ROWS, [])
    with pytest.raises(ConfigError, match="order"):
        tooleval.evaluate(ROWS, [("tool_correctness", {"order": "sideways"})])
    with pytest.raises(ConfigError, match="got int"):
        tooleval.evaluate(ROWS, [3])
    with pytest.raises(ConfigError, match="concurrency"):
        tooleval.evaluate(ROWS, "tool_call_f1", concurrency=0)


def test_metrics_as_a_mapping_of_options_and_an_unused_judge():
    result = tooleval.evaluate(ROWS, {"tool_correctness": {}, "tool_call_f1": {"args": "ignore"}})
    assert result.metrics == ("tool_correctness", "tool_call_f1")
    assert result.rows[1].result.params["args"] == "ignore"
    with pytest.raises(ConfigError, match="no metric to bind needs one"):
        tooleval.evaluate(ROWS, "tool_call_f1", judge="local")


def test_bound_metrics_keep_their_options():
    from tooleval.metrics import bind

    result = tooleval.evaluate(ROWS[2:3], [bind("tool_call_f1", args="ignore"), "tool_correctness"])
    assert result.rows[0].result.params["args"] == "ignore"
    assert result.metrics == ("tool_call_f1", "tool_correctness")


def test_judged_metrics_with_an_openai_compatible_endpoint(monkeypatch, tmp_path):
    monkeypatch.delenv("TOOLEVAL_JUDGE", raising=False)
    with pytest.raises(ConfigError, match="judge='local'"):
        tooleval.evaluate(RECORDED, ["tool_correctness", "task_success"])
    with JudgeServer() as server:
        judge = {"type": "openai", "model": "served", "base_url": server.base_url, "cache": False}
        metrics = ["tool_call_accuracy", "tool_correctness", "task_success"]
        result = tooleval.evaluate(RECORDED, metrics, judge=judge, concurrency=2)
        scores = dict(zip([r.row_id for r in result if r.metric == "task_success"],
                          result["task_success"], strict=True))  # fmt: skip
        assert scores == {"done": 1.0, "failed": 0.0, "garbage": None}
        garbage = next(r for r in result if r.row_id == "garbage" and r.metric == "task_success")
        assert "judge reply" in garbage.unscored_reason
        assert result["tool_correctness"] == [1.0, 1.0, 1.0]
        assert result.judge_usage["calls"] == 4 == len(server.calls)  # one re-ask for garbage
        assert result.judge_usage["tokens_in"] == 40
        assert "judge: 4 calls" in repr(result)
        config = tmp_path / "judge.yaml"
        config.write_text(
            f"judge:\n  type: openai\n  model: served\n  base_url: {server.base_url}\n"
            "  cache: false\n"
        )
        monkeypatch.setenv("TOOLEVAL_JUDGE", str(config))
        again = tooleval.evaluate(RECORDED[:2], "task_success")
        assert again["task_success"] == [1.0, 0.0]
        assert tooleval.evaluate(RECORDED[:1], "task_success", judge=str(config))[
            "task_success"
        ] == [1.0]


def test_judged_metrics_inside_a_running_event_loop():
    """A notebook runs an event loop: evaluate() still works (the judging runs on a thread)."""
    with JudgeServer() as server:
        judge = {"type": "openai", "model": "served", "base_url": server.base_url, "cache": False}

        async def in_a_notebook():
            return tooleval.evaluate(RECORDED[:2], "task_success", judge=judge)

        assert asyncio.run(in_a_notebook())["task_success"] == [1.0, 0.0]


def test_the_judge_cache_is_used_and_counted(tmp_path):
    with JudgeServer() as server:
        cache = str(tmp_path / "cache.db")
        judge = {"type": "openai", "model": "served", "base_url": server.base_url, "cache": cache}
        first = tooleval.evaluate(RECORDED[:2], "task_success", judge=judge)
        second = tooleval.evaluate(RECORDED[:2], "task_success", judge=judge)
    assert first.judge_usage["calls"] == 2 and second.judge_usage["calls"] == 0
    assert second.judge_usage["cached_calls"] == 2
    assert second["task_success"] == first["task_success"]


@pytest.mark.llm
def test_judged_metrics_with_the_bundled_local_judge():
    from tooleval.errors import JudgeError
    from tooleval.llm.local import find_smollm2_gguf

    try:
        find_smollm2_gguf()
    except JudgeError as exc:
        pytest.skip(str(exc))
    samples = [tooleval.sample_from_row(RECORDED[0])]  # one row: the model is slow on 2 cores
    # replies cut at 64 tokens: SmolLM2 rambles to any cap (2 x 256 tokens took 20 CPU-s)
    judge = {"type": "local", "cache": False, "max_new_tokens": 64}
    result = tooleval.evaluate(
        samples, ["tool_correctness", "task_success"], judge=judge, concurrency=1
    )
    assert result["tool_correctness"] == [1.0]
    for row in (r for r in result if r.metric == "task_success"):
        # SmolLM2 often writes malformed JSON: unscored with the reason, never a 0
        assert row.score in (0.0, 1.0) or "judge reply" in (row.unscored_reason or "")
        exchanges = row.diagnosis.details["exchanges"]
        assert exchanges and all(0 < e["tokens_out"] <= 64 for e in exchanges)  # the option held
    assert result.judge_usage["calls"] >= 1


def test_sample_objects_are_taken_as_they_are():
    sample = Sample(id="s", tools_called=["a"], expected_tools=["a"])
    assert tooleval.evaluate([sample], "tool_call_f1").rows[0].row_id == "s"
