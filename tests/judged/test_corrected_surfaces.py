"""A judged pass rate beside its Rogan-Gladen correction: the same line on every surface.

One run judged by a named judge, labels, a stored calibration. ``runs show``, the
HTML report and the viewer's run page must each show the line
:func:`tooleval.calibration.gate_calibrations` makes from the stored calibration and
the run's counts (never a rate of their own), and the stored gate's
``require_calibration`` is checked on each of them ("cannot be checked here" nowhere).
"""

from __future__ import annotations

import html

import pytest

from tooleval.calibration import calibrate, gate_calibrations
from tooleval.cli.main import main
from tooleval.model import Result, Sample
from tooleval.report.judged_rates import UNCALIBRATED
from tooleval.store import Label, MetricSpec, RowRecord, open_store

GATE = {"metrics": {"task_success": {"min_pass_rate": 0.5, "require_calibration": True}}}


def _run(store, *, judge: str = "judge-m") -> str:
    run_id = store.create_run(
        "judged",
        dataset={},
        connector={},
        metrics=[MetricSpec("task_success")],
        config={"judge": {"type": "openai", "model": judge}, "gate": GATE},
    )
    rows = []
    for index in range(40):
        verdict = index % 5 != 0  # 32 of 40 judged passes
        result = Result.scored("task_success", float(verdict), reason="stored")
        rows.append(
            RowRecord(run_id, index, f"r{index}", Sample(input=f"q{index}"), results=(result,))
        )
    store.add_rows(run_id, rows)
    store.finish_run(run_id)
    return run_id


@pytest.fixture
def calibrated(tmp_path):
    db = tmp_path / "runs.db"
    store = open_store(db)
    run_id = _run(store)
    # People disagree with the judge on rows 1 and 2 (it passed them) and on row 5 (it failed it).
    labels = [Label(i, "task_success", (i % 5 != 0) != (i in (1, 2, 5))) for i in range(20)]
    store.labels.set_labels(run_id, labels)
    calibrate(store, run_id, "task_success")
    (line,) = gate_calibrations(store, store.get_run(run_id)).values()
    assert line is not None and "rogan-gladen" in line
    yield store, run_id, str(db), line
    store.close()


def test_runs_show_prints_the_corrected_rate_and_checks_require_calibration(calibrated, capsys):
    store, run_id, db, line = calibrated
    assert main(["runs", "show", run_id, "--store", db]) == 0
    out = capsys.readouterr().out
    assert f"task_success: {line}" in out
    assert "cannot be checked here" not in out
    assert "task_success: judge calibrated (" in out


def test_the_report_shows_the_same_line(calibrated, tmp_path):
    store, run_id, db, line = calibrated
    target = tmp_path / "report.html"
    assert main(["report", run_id, "--store", db, "-o", str(target)]) == 0
    text = target.read_text(encoding="utf-8")
    assert html.escape(f"task_success: {line}", quote=True) in text
    assert "cannot be checked here" not in text


def test_the_viewer_shows_the_same_line(calibrated):
    from fastapi.testclient import TestClient

    from tooleval.web import create_app

    store, run_id, _, line = calibrated
    app = create_app(store, calibrations=gate_calibrations)
    with TestClient(app, base_url="http://127.0.0.1:8765") as client:
        page = client.get(f"/runs/{run_id}").text
        listed = client.get("/").text
    assert "cannot be checked here" not in listed
    assert html.escape(f"task_success: {line}", quote=True) in page
    assert "cannot be checked here" not in page


def test_an_uncalibrated_judge_is_said_so_and_fails_require_calibration(tmp_path, capsys):
    with open_store(tmp_path / "runs.db") as store:
        run_id = _run(store, judge="never-calibrated")
    assert main(["runs", "show", run_id, "--store", str(tmp_path / "runs.db")]) == 0
    out = capsys.readouterr().out
    assert f"task_success: {UNCALIBRATED}" in out
    assert "task_success: judge not calibrated against labels (required)" in out
