"""Shipped calibration sets: labelled rows from public data, labels read back from the data itself.

Each set's labels are compared with the source files read independently here
(tau-bench's and tau2's rewards, BFCL's score files). ``judge calibrate --set``
judges a small sample with a scripted OpenAI-compatible server on 127.0.0.1 and
stores the calibration; a missing data folder is refused naming the path and
the option to give.
"""

from __future__ import annotations

import json

import pytest
from tests.openai_server import OpenAIServer, completion

from tooleval.calibration.sets import CALIBRATION_SETS, set_rows
from tooleval.cli.main import main
from tooleval.store import open_store


def test_tau_bench_labels_are_its_rewards(shared_data):
    runs = json.loads(
        (shared_data / "tau_bench/trajectories/gpt-4o-airline.json").read_text(encoding="utf-8")
    )
    expected = {f"task{r['task_id']}-trial{r.get('trial', 0)}": r["reward"] == 1.0 for r in runs}
    _, rows = set_rows("tau-airline", data=shared_data, rows=0)
    assert {r.row_id: r.passed for r in rows} == expected
    assert all(r.sample.messages for r in rows)


def test_tau2_labels_are_its_rewards(shared_data):
    path = shared_data / "tau2_bench/trajectories/whissle_airline_run1.json"
    simulations = json.loads(path.read_text(encoding="utf-8"))["simulations"]
    _, rows = set_rows("tau2-airline", data=shared_data, rows=0)
    assert len(rows) == len(simulations)
    assert sum(r.passed for r in rows) == sum(
        s["reward_info"]["reward"] == 1.0 for s in simulations
    )
    calls = [
        c for r in rows for m in r.sample.messages for c in (getattr(m, "tool_calls", None) or [])
    ]
    assert calls and all(c.name for c in calls)


def test_bfcl_labels_are_its_checker_verdicts(shared_data):
    failed = {}
    for path in (shared_data / "bfcl/scores/glyphh-ada-1.1").glob("*_score.json"):
        if "multi_turn" in path.name:  # not in the set (multi-turn states, no single call)
            continue
        for line in path.read_text(encoding="utf-8").splitlines()[1:]:
            entry = json.loads(line)
            failed[entry["id"]] = entry["error_type"]
    _, rows = set_rows("bfcl-tools-error", data=shared_data, rows=0)
    assert len(rows) > 1000
    for row in rows:
        assert row.passed == (row.row_id not in failed)
        if not row.passed:
            assert row.note == f"BFCL checker: {failed[row.row_id]}"


def test_a_sample_is_seeded_and_label_balanced(shared_data):
    _, first = set_rows("tau-airline", data=shared_data, rows=20, seed=3)
    _, again = set_rows("tau-airline", data=shared_data, rows=20, seed=3)
    assert [r.row_id for r in first] == [r.row_id for r in again]
    assert sum(r.passed for r in first) == 10
    assert len({r.row_id for r in first}) == 20


def _always_done(body, number):
    text = json.dumps({"evidence": "the tool results", "accomplished": True, "reason": "done"})
    return completion({"role": "assistant", "content": text}, number=number)


def test_judge_calibrate_set_stores_a_calibration(shared_data, tmp_path, capsys):
    db = str(tmp_path / "runs.db")
    with OpenAIServer(_always_done) as server:
        code = main(
            [
                "judge",
                "calibrate",
                "--set",
                "tau2-airline",
                "--rows",
                "6",
                "--data",
                str(shared_data),
                "--base-url",
                server.base_url,
                "--model",
                "always-yes",
                "--store",
                db,
                "--json",
            ]  # fmt: skip
        )
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["labels"] == 6 and report["compared"] == 6
    # A judge that passes everything: every labelled pass is a TP, every labelled fail an FP.
    assert report["confusion"] == {"tp": 3, "fn": 0, "fp": 3, "tn": 0}
    assert report["source"].startswith("calibration set tau2-airline (6 rows")
    with open_store(db) as store:
        (found,) = store.labels.calibrations(metric="task_success")
        assert found.model == "always-yes"
        run = store.get_run(store.resolve_run_id("latest"))
        assert run.name == "calibration set tau2-airline"
        assert len(store.labels.get_labels(run.id)) == 6


@pytest.mark.parametrize("name", list(CALIBRATION_SETS))
def test_missing_data_is_refused_naming_the_path_and_option(name, tmp_path, capsys):
    code = main(
        [
            "judge",
            "calibrate",
            "--set",
            name,
            "--data",
            str(tmp_path / "nowhere"),
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
            "--store",
            str(tmp_path / "runs.db"),
        ]  # fmt: skip
    )
    assert code == 2
    err = capsys.readouterr().err
    assert str(tmp_path / "nowhere") in err
    assert "--data DIR" in err and "TOOLEVAL_SHARED_DATA" in err


def test_a_set_needs_a_judge_and_its_own_metric(tmp_path, capsys):
    db = str(tmp_path / "runs.db")
    assert main(["judge", "calibrate", "--set", "tau-airline", "--store", db]) == 2
    assert "name the judge to measure" in capsys.readouterr().err
    code = main(
        [
            "judge",
            "calibrate",
            "--set",
            "tau-airline",
            "--metric",
            "tools_error",
            "--local",
            "--store",
            db,
        ]  # fmt: skip
    )
    assert code == 2
    assert "set tau-airline calibrates task_success, not tools_error" in capsys.readouterr().err
    assert main(["judge", "calibrate", "--set", "nope", "--local", "--store", db]) == 2
    assert "unknown calibration set 'nope'" in capsys.readouterr().err
    assert main(["judge", "calibrate", "--store", db]) == 2
    assert "give a RUN to calibrate against, or --set NAME" in capsys.readouterr().err
