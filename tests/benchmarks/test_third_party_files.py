"""Benchmark files as other tools write them (issue #22, items 16-20; #23's tau categories).

The rule for every benchmark reader: a record that cannot be read is an
unscored row with the reason; only a file that cannot be read at all is
refused, and then the message says what was seen.
"""

from __future__ import annotations

import json

import pytest

from tooleval.benchmarks import unreadable_reason
from tooleval.benchmarks.tau2.reader import samples_from_tau2_results
from tooleval.benchmarks.tau_bench.reader import load_tau_bench, samples_from_tau_bench_runs
from tooleval.cli.main import main
from tooleval.metrics.registry import score_sample


def _run(task_id: int, calls: list[tuple[str, dict]], gold: list[tuple[str, dict]]) -> dict:
    traj: list[dict] = [{"role": "user", "content": "help"}]
    for i, (name, args) in enumerate(calls):
        traj.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": f"c{i}", "function": {"name": name, "arguments": json.dumps(args)}}
                ],
            }
        )
        traj.append({"role": "tool", "tool_call_id": f"c{i}", "content": "ok"})
    return {
        "task_id": task_id,
        "trial": 0,
        "reward": 1.0,
        "info": {"task": {"actions": [{"name": n, "kwargs": a} for n, a in gold]}},
        "traj": traj,
    }


CANCEL = ("cancel_pending_order", {"order_id": "#W1", "reason": "no longer needed"})
LOOKUP = ("find_user_id_by_email", {"email": "a@b.c"})
CRASH = {
    "task_id": 31,
    "trial": 0,
    "reward": 0.0,
    "info": {"error": "RateLimitError: 429 Too Many Requests", "traceback": "Traceback...\n"},
    "traj": [],
}


def _score(capsys, *args) -> tuple[int, list[dict], str]:
    code = main(["score", *map(str, args)])
    captured = capsys.readouterr()
    rows = [json.loads(line) for line in captured.out.splitlines() if line.strip()]
    return code, rows, captured.err


# ---------------------------------------------------------------- 16: crash records


def test_tau_bench_crash_record_is_an_unscored_row(tmp_path, capsys):
    path = tmp_path / "results.json"
    path.write_text(json.dumps([_run(0, [LOOKUP, CANCEL], [CANCEL]), CRASH, _run(2, [], [CANCEL])]))
    code, rows, err = _score(capsys, path)  # detected as tau-bench
    assert code == 0, err
    assert [(r["id"], r["score"]) for r in rows] == [("0-0", 1.0), ("31-0", None), ("2-0", 0.0)]
    assert rows[1]["reason"] == "tau-bench run failed: RateLimitError: 429 Too Many Requests"


def test_a_malformed_record_is_unscored_and_an_unreadable_file_refused(tmp_path, capsys):
    broken = {"task_id": 5, "trial": 1, "info": {"reward_info": {}}, "traj": []}
    samples = samples_from_tau_bench_runs([_run(0, [CANCEL], [CANCEL]), broken])
    assert unreadable_reason(samples[0]) is None
    assert unreadable_reason(samples[1]) == "field runs[1].info: missing 'task'"
    assert samples[1].id == "5-1"
    only_bad = tmp_path / "bad.json"
    only_bad.write_text(json.dumps([broken, broken]))
    code, rows, err = _score(capsys, only_bad, "--format", "tau_bench")
    assert code == 2 and not rows and "missing 'task'" in err and err.count("\n") == 1


# ---------------------------------------------------------------- 17: act / react text actions


def test_tau_bench_react_text_actions_are_calls(tmp_path):
    react = {
        "task_id": 7,
        "trial": 0,
        "reward": 1.0,
        "info": {"task": {"actions": [{"name": CANCEL[0], "kwargs": CANCEL[1]}]}},
        "traj": [
            {"role": "system", "content": "policy"},
            {"role": "user", "content": "cancel my order"},
            {
                "role": "assistant",
                "content": "Thought:\nfind the user\nAction:\n"
                + json.dumps({"name": LOOKUP[0], "arguments": LOOKUP[1]}),
            },
            {"role": "user", "content": "API output: u1"},
            {
                "role": "assistant",
                "content": "Action: " + json.dumps({"name": CANCEL[0], "arguments": CANCEL[1]}),
            },
            {"role": "user", "content": "API output: Error: order not pending"},
            {
                "role": "assistant",
                "content": "Action: " + json.dumps({"name": CANCEL[0], "arguments": CANCEL[1]}),
            },
            {"role": "user", "content": "API output: done"},
            {
                "role": "assistant",
                "content": "Action: "
                + json.dumps({"name": "respond", "arguments": {"content": "Done."}}),
            },
            {"role": "user", "content": "thanks"},
            {"role": "assistant", "content": "Action: not json at all"},
        ],
    }
    path = tmp_path / "react.json"
    path.write_text(json.dumps([react]))
    (sample,) = load_tau_bench(path)
    calls = sample.actual_calls()
    assert [c.name for c in calls] == [LOOKUP[0], CANCEL[0], CANCEL[0]]
    assert calls[0].args == LOOKUP[1] and calls[0].result == "u1"
    assert str(calls[1].result).startswith("Error")  # tau-bench's failed write, left out
    assert sample.messages[-3].content == "Done."  # the respond action is the reply
    assert sample.messages[-1].content == "Action: not json at all"  # tau-bench: a reply
    result = score_sample("tau_bench_actions", sample)
    assert result.score == 1.0, result.reason


# ---------------------------------------------------------------- 18: tau2 acceptable outcomes


def _tau2(criteria: dict) -> dict:
    return {
        "info": {"environment_info": {"domain_name": "airline"}},
        "tasks": [{"id": "t1", "evaluation_criteria": criteria}],
        "simulations": [
            {
                "id": "s1",
                "task_id": "t1",
                "termination_reason": "agent_stop",
                "messages": [
                    {"role": "assistant", "tool_calls": [{"name": "refund", "arguments": {"o": 1}}]}
                ],
            }
        ],
    }


@pytest.mark.parametrize(
    "extra", [{"nl_assertions": ["says sorry"]}, {"reward_basis": ["DB"]}, {"reward": 1.0}]
)
def test_tau2_outcome_fields_follow_the_top_level_rule(extra):
    gold = [{"name": "refund", "arguments": {"o": 1}}]
    top = samples_from_tau2_results(_tau2({"actions": gold, **extra}))[0]
    inner = samples_from_tau2_results(
        _tau2({"actions": [], "acceptable_outcomes": [{"actions": gold, **extra}]})
    )[0]
    if "reward" not in extra:  # reward labels an outcome; at the top level it is no criterion
        assert score_sample("tau2_actions", top).score == 1.0
    assert score_sample("tau2_actions", inner).score == 1.0
    odd = samples_from_tau2_results(
        _tau2({"actions": [], "acceptable_outcomes": [{"actions": gold, "mystery": 1}]})
    )[0]
    result = score_sample("tau2_actions", odd)
    assert result.score is None and "acceptable_outcomes[0].mystery" in result.reason


# ---------------------------------------------------------------- 19: API-Bank from other graders


def test_apibank_one_json_document_of_tool_name_calls(tmp_path, capsys):
    path = tmp_path / "graded.json"
    rows = [
        {
            "gold": {"tool_name": "AddAlarm", "arguments": {"time": "08:00"}},
            "pred": {"tool_name": "AddAlarm", "arguments": '{"time": "08:00"}'},
            "id": 1,
        },
        {
            "gold": [{"name": "AddAlarm", "arguments": {"time": "09:00"}}],
            "pred": [{"function": {"name": "AddAlarm", "arguments": {"time": "9:00"}}}],
            "id": 2,
        },
        {"gold": 3, "pred": "x", "id": 3},
    ]
    path.write_text(json.dumps({"model": "m", "results": rows}, indent=2))
    code, out, err = _score(capsys, path)
    assert code == 0, err
    assert [(r["id"], r["score"]) for r in out] == [("1", 1.0), ("2", 0.0), ("3", None)]
    assert "rows[2].gold" in out[2]["reason"]
    path.write_text(json.dumps(rows, indent=2))  # a JSON list spread over lines
    code, out, err = _score(capsys, path, "--format", "API-Bank")
    assert code == 0 and len(out) == 3, err


def test_apibank_message_never_calls_valid_json_invalid(tmp_path, capsys):
    path = tmp_path / "odd.json"
    path.write_text(json.dumps({"model": "m", "notes": "nothing here"}, indent=2))
    code, _, err = _score(capsys, path, "--format", "api-bank")
    assert code == 2 and "invalid JSON" not in err and "one JSON object" in err
    path.write_text('{"pred": "[A()]",\n "gold": "[A()]"\nnot json\n')
    code, _, err = _score(capsys, path, "--format", "api-bank")
    assert code == 2 and "neither one JSON document" in err and "nor JSONL (line 1" in err


# ---------------------------------------------------------------- 20: detection says what it saw


def test_truncated_tau2_file_detection_says_what_it_saw(tmp_path, capsys):
    whole = json.dumps(_tau2({"actions": [{"name": "refund", "arguments": {"o": 1}}]}), indent=2)
    path = tmp_path / "tau2.json"
    path.write_text(whole[: len(whole) - 40])
    code, _, err = _score(capsys, path)
    assert code == 2 and err.count("\n") == 1
    assert "looks like tau2 results, but the file is not valid JSON" in err
    assert "--metric is required" not in err


def test_tau2_file_without_tasks_detection_says_what_it_saw(tmp_path, capsys):
    data = _tau2({"actions": []})
    del data["tasks"]
    path = tmp_path / "tau2.json"
    path.write_text(json.dumps(data))
    code, _, err = _score(capsys, path)
    assert code == 2 and "looks like tau2 results" in err and "no 'tasks' list" in err


def test_canonical_rows_are_not_taken_for_a_benchmark(tmp_path, capsys):
    path = tmp_path / "rows.jsonl"
    rows = [
        {
            "id": "a",
            "tools_called": ["x"],
            "expected_tools": ["x"],
            "metadata": {"note": '"simulations" "termination_reason"'},
        }
    ] * 2
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    code, out, err = _score(capsys, path, "--metric", "tool_call_f1")
    assert code == 0 and len(out) == 2, err


# ---------------------------------------------------------------- names, #23 categories


def test_format_names_any_spelling_and_did_you_mean(tmp_path, capsys):
    path = tmp_path / "r.json"
    path.write_text(json.dumps([_run(0, [CANCEL], [CANCEL])]))
    for spelling in ("tau_bench", "Tau-Bench", "TAU BENCH"):
        code, rows, err = _score(capsys, path, "--format", spelling)
        assert code == 0 and rows[0]["metric"] == "tau_bench_actions", err
    code, _, err = _score(capsys, path, "--format", "tau-bnch")
    assert code == 2 and "did you mean 'tau-bench'?" in err


def test_tau_rows_get_their_category_from_the_domain():
    (retail,) = samples_from_tau_bench_runs([_run(0, [LOOKUP, CANCEL], [CANCEL])])
    assert retail.category == "retail"  # no info.env: the tool names tell, as the metric does
    (airline,) = samples_from_tau2_results(_tau2({"actions": []}))
    assert airline.category == "airline"
