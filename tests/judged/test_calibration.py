"""`tooleval judge calibrate` against labels: stored verdicts, and a real judge server on 127.0.0.1.

The judge is an OpenAI-compatible HTTP server whose replies a script decides from
the prompt: verdicts, malformed JSON, a reply cut off by the token limit, a refusal,
and a reply slower than the judge's timeout. Rows the judge could not judge are
listed apart, never counted as a pass or a fail.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from tests.judge_server import conversation
from tests.openai_server import OpenAIServer, completion, prompt_text

from tooleval.calibration import calibrate, corrected_pass_rate, run_calibrations
from tooleval.cli.main import main
from tooleval.errors import ConfigError
from tooleval.formats.rows import sample_from_row
from tooleval.llm.openai_judge import OpenAIJudge
from tooleval.model import Result
from tooleval.store import Label, MetricSpec, RowRecord, open_store, parse_labels, resolve_labels

# (row id, tool result the judge reads, human label)
ROWS = [
    ("ok-1", "cancelled", True),
    ("declined", "ERROR: CARD-DECLINED", False),
    ("fooled", "cancelled", False),  # people saw the order was not cancelled; the judge passes it
    ("ok-2", "cancelled", True),
    ("malformed", "MALFORMED-PLEASE", True),
    ("truncated", "TRUNCATED-PLEASE", True),
    ("refusing", "REFUSE-PLEASE", False),
    ("slow", "SLOW-PLEASE", True),
]


class ScriptedJudge(OpenAIServer):
    """Verdicts and faults by what the prompt holds; the slow reply waits until released."""

    def __init__(self) -> None:
        self.release = threading.Event()
        super().__init__(self._reply)

    def _answer(self, body: dict[str, Any]) -> dict[str, Any]:
        self.requests.append(body)  # no lock: the slow reply must not hold up the others
        return self._reply(body, len(self.requests))

    def _reply(self, body: dict[str, Any], number: int) -> dict[str, Any]:
        prompt = prompt_text(body)
        if "Did the tool call fail?" in prompt:  # judge check's probes
            text = json.dumps({"tool_failed": "ERROR" in prompt, "reason": "read the result"})
        elif "SLOW-PLEASE" in prompt:
            self.release.wait(60)
            text = json.dumps({"evidence": "e", "accomplished": True, "reason": "late"})
        elif "MALFORMED-PLEASE" in prompt:
            text = '{"evidence": "e", "accomplished": yes,, }'
        elif "TRUNCATED-PLEASE" in prompt:
            return completion(
                {"role": "assistant", "content": '{"evidence": "the tool res'},
                finish="length",
                number=number,
            )
        elif "REFUSE-PLEASE" in prompt:
            return completion(
                {"role": "assistant", "content": None, "refusal": "I can't help with that."},
                number=number,
            )
        else:
            done = "CARD-DECLINED" not in prompt
            text = json.dumps({"evidence": "the tool result", "accomplished": done, "reason": "r"})
        return completion({"role": "assistant", "content": text}, number=number)

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        super().__exit__(*exc)


def _store_run(path, *, stored_verdicts: dict[str, bool] | None = None, judge: str = "scripted"):
    store = open_store(path)
    run_id = store.create_run(
        "labelled",
        dataset={},
        connector={},
        metrics=[MetricSpec("task_success")],
        config={"judge": {"type": "openai", "model": judge}},
    )
    for index, (row_id, tool_result, _) in enumerate(ROWS):
        sample = sample_from_row(conversation(row_id, tool_result, "Order 4471 is cancelled."))
        verdict = (stored_verdicts or {}).get(row_id)
        result = (
            Result.unscored("task_success", "judge reply unparsable after one re-ask")
            if verdict is None
            else Result.scored("task_success", float(verdict), reason="stored verdict")
        )
        store.add_row(run_id, RowRecord(run_id, index, row_id, sample, results=(result,)))
    store.finish_run(run_id)
    return store, run_id


def _labels_file(tmp_path):
    path = tmp_path / "labels.csv"
    lines = ["row_id,label,note,labeller"]
    lines += [f"{row_id},{'pass' if label else 'fail'},,ana" for row_id, _, label in ROWS]
    lines[3] = "fooled,fail,the order is still open,ana"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# What a run stored for task_success, by row (for calibrating from stored verdicts).
STORED_VERDICTS = {"ok-1": True, "declined": False, "fooled": True, "ok-2": True, "slow": False}


def _labelled_run(tmp_path, *, stored_verdicts: dict[str, bool] | None = None):
    """A stored run and its labels imported through the CLI: ``(run_id, store path)``."""
    store, run_id = _store_run(tmp_path / "runs.db", stored_verdicts=stored_verdicts)
    store.close()
    db = str(tmp_path / "runs.db")
    labels = str(_labels_file(tmp_path))
    command = ["judge", "labels", "import", run_id, labels, "--metric", "task_success"]
    assert main([*command, "--store", db]) == 0
    return run_id, db


@pytest.mark.parametrize("batch_rows", [None, 3])
def test_calibrate_against_a_live_judge_with_faulty_replies(tmp_path, batch_rows):
    run_id, db = _labelled_run(tmp_path)
    with ScriptedJudge() as server, open_store(db) as store:
        # The slow reply never comes before the timeout (it waits to be released); the
        # others come in milliseconds, far inside it.
        judge = OpenAIJudge(
            "scripted",
            base_url=server.base_url,
            api_key="k",
            timeout=8.0,
            max_retries=0,
            cache=False,
        )
        if batch_rows:  # several rows judged at once (as the local judge asks): same report
            judge.batch_rows = batch_rows  # type: ignore[attr-defined]
        report = calibrate(store, run_id, "task_success", judge=judge)
        judge.close()
        server.release.set()
        before = [r.results for r in store.iter_rows(run_id)]
        assert all(r[0].passed is None for r in before)  # the labels and the live judging
        # changed no stored result
    c = report.confusion
    assert (c.tp, c.fn, c.fp, c.tn) == (2, 0, 1, 1)
    assert report.figures["kappa"] == pytest.approx(0.5)
    assert report.figures["tpr"]["value"] == 1.0 and report.figures["tnr"]["value"] == 0.5
    assert [w["row_id"] for w in report.wrong] == ["fooled"]
    assert report.wrong[0]["note"] == "the order is still open"
    unscored = {u["row_id"]: u["reason"] for u in report.unscored}
    assert sorted(unscored) == ["malformed", "refusing", "slow", "truncated"]
    assert "timed out" in unscored["slow"]
    assert "unparsable" in unscored["malformed"] and "never closed" in unscored["truncated"]
    assert report.identity["model"] == "scripted" and report.record_id


def test_calibrate_from_stored_verdicts_and_see_it_in_judge_check(tmp_path, capsys):
    run_id, db = _labelled_run(tmp_path, stored_verdicts=STORED_VERDICTS)
    capsys.readouterr()
    assert (
        main(["judge", "calibrate", run_id, "--metric", "task_success", "--store", db, "--json"])
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert report["confusion"] == {"tp": 2, "fn": 1, "fp": 1, "tn": 1}
    assert {w["row_id"] for w in report["wrong"]} == {"fooled", "slow"}
    assert len(report["unscored"]) == 3
    assert main(["judge", "calibrate", run_id, "--metric", "task_success", "--store", db]) == 0
    shown = capsys.readouterr().out
    assert "kappa" in shown and "wrong: row 2 (fooled): labelled fail, judged pass" in shown
    with open_store(db) as store:
        run = store.get_run(run_id)
        found = run_calibrations(store, run)["task_success"]
        assert found is not None and found.report["confusion"]["tp"] == 2
        corrected = corrected_pass_rate(run, "task_success", found)
        assert corrected is not None and corrected.observed == pytest.approx(3 / 5)
    with ScriptedJudge() as server:
        code = main(
            ["judge", "check", "--base-url", server.base_url, "--model", "scripted", "--store", db]
        )
    out = capsys.readouterr().out
    assert code == 0
    assert "task_success (prompt " in out and "on 5 labelled rows" in out


def test_labels_export_round_trips_and_errors_exit_2(tmp_path, capsys):
    store, run_id = _store_run(tmp_path / "runs.db")
    store.close()
    db = str(tmp_path / "runs.db")
    assert (
        main(
            [
                "judge",
                "labels",
                "import",
                run_id,
                str(_labels_file(tmp_path)),
                "--metric",
                "task_success",
                "--store",
                db,
            ]
        )
        == 0
    )
    out = tmp_path / "out.jsonl"
    assert (
        main(
            [
                "judge",
                "labels",
                "export",
                run_id,
                "--format",
                "jsonl",
                "-o",
                str(out),
                "--store",
                db,
            ]
        )
        == 0
    )
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(d["row_id"], d["label"]) for d in lines][:3] == [
        ("ok-1", "pass"),
        ("declined", "fail"),
        ("fooled", "fail"),
    ]
    capsys.readouterr()
    bad = tmp_path / "bad.csv"
    bad.write_text("row_id,label\nok-1,pass\nnope,fail\n")
    assert (
        main(
            [
                "judge",
                "labels",
                "import",
                run_id,
                str(bad),
                "--metric",
                "task_success",
                "--store",
                db,
            ]
        )
        == 2
    )
    assert "field row_id, line 3: the run has no row 'nope'" in capsys.readouterr().err
    # the export as an input: refused before anything is written (a SQLite store too)
    assert main(["judge", "labels", "export", run_id, "-o", db, "--store", db]) == 2
    # a judged metric without labels, and a metric that is not judged
    assert main(["judge", "calibrate", run_id, "--metric", "goal_accuracy", "--store", db]) == 2
    assert "has no labels for goal_accuracy" in capsys.readouterr().err
    assert main(["judge", "calibrate", run_id, "--metric", "f1", "--store", db]) == 2
    assert "not a judged metric" in capsys.readouterr().err


def test_stored_verdicts_need_a_recorded_judge(tmp_path):
    store, run_id = _store_run(tmp_path / "runs.db", stored_verdicts={"ok-1": True})
    with store:
        store.labels.set_labels(run_id, [Label(0, "task_success", True)])
        run = store.get_run(run_id)
        object.__setattr__(run, "config", {})
        with pytest.raises(ConfigError, match="records no judge"):
            from tooleval.calibration.core import _stored_model

            _stored_model(run)


def test_the_gate_warns_on_an_uncalibrated_judge_and_can_require_one(tmp_path):
    from tooleval.analysis.gate import GateSpec, MetricGate, evaluate_gate, stored_gate_spec
    from tooleval.calibration import gate_calibrations

    store, run_id = _store_run(tmp_path / "runs.db", stored_verdicts=STORED_VERDICTS)
    with store:
        run = store.get_run(run_id)
        uncalibrated = gate_calibrations(store, run)
        assert uncalibrated == {"task_success": None}
        spec = GateSpec(metrics={"task_success": MetricGate(min_pass_rate=0.5)})
        checks = evaluate_gate(run, spec, calibrations=uncalibrated).checks
        floor = next(c for c in checks if c.name == "task_success")
        assert floor.passed and any("not calibrated" in note for note in floor.notes)
        required = GateSpec(
            metrics={"task_success": MetricGate(min_pass_rate=0.5, require_calibration=True)}
        )
        # The spec round-trips through a run's stored config (runs show, runs export).
        assert (
            stored_gate_spec(type(run)(**{**_fields(run), "config": {"gate": required.to_dict()}}))
            .metrics["task_success"]
            .require_calibration
        )
        result = evaluate_gate(run, required, calibrations=uncalibrated)
        assert not result.passed
        assert "judge not calibrated against labels (required)" in [
            c.message.split(": ", 1)[1] for c in result.checks if c.what == "calibration"
        ]
        assert not evaluate_gate(run, required).passed  # nobody looked: not shown as passed
        lines = [f"{row_id},{'pass' if label else 'fail'}" for row_id, _, label in ROWS[:4]]
        store.labels.set_labels(
            run_id,
            resolve_labels(
                parse_labels("row_id,label\n" + "\n".join(lines), "l.csv", metric="task_success"),
                store.labels.row_indexes_by_id(run_id),
                ["task_success"],
            ),
        )
        calibrate(store, run_id, "task_success")
        calibrated = gate_calibrations(store, run)
        assert "judged pass rate 60.0%, corrected" in (calibrated["task_success"] or "")
        result = evaluate_gate(run, required, calibrations=calibrated)
        assert result.passed, [c.message for c in result.checks]
        floor = next(
            c for c in result.checks if c.name == "task_success" and c.what != "calibration"
        )
        assert any("judge calibrated: kappa" in note for note in floor.notes)


def _fields(run):
    import dataclasses

    return {f.name: getattr(run, f.name) for f in dataclasses.fields(run)}


def test_a_plan_sets_require_calibration_and_a_wrong_value_is_refused():
    from tooleval.runs.plan import plan_from_dict

    base = {"dataset": "d.jsonl", "connector": {"type": "http", "url": "http://127.0.0.1:9/"}}
    base["metrics"] = ["task_success"]
    gate = {"metrics": {"task_success": {"min_pass_rate": 0.8, "require_calibration": True}}}
    plan = plan_from_dict({**base, "gate": gate})
    assert plan.gate.metrics["task_success"].require_calibration
    gate["metrics"]["task_success"]["require_calibration"] = "yes"
    with pytest.raises(ConfigError, match="gate.metrics.task_success.require_calibration"):
        plan_from_dict({**base, "gate": gate})
