"""One run, one truth, end to end: a real ``tooleval run`` read back through every surface.

``tooleval run PLAN --repeat 3`` runs in its own process against a real HTTP agent on
127.0.0.1 (tests/agent_stub.py) into a real SQLite store: rows of three categories,
connector errors (a row the agent always refuses, rows refused on their first attempt
only, which makes them flaky), a row with no reference (unscored), wrong calls. A second
run of the same plan (one attempt) is the other side of ``compare``. Every figure is then
parsed back from ``run``'s own stdout (per-metric table, repeats block, gate lines),
``runs show``, ``runs list``, ``compare``, the JUnit, ``--summary-md`` and JSON files the
run wrote, the CSV export, the HTML report and the viewer's pages served by a real
uvicorn, and compared with the read model (:func:`run_figures`) of the same stored run.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from tests.agent_stub import AgentStub
from tests.analysis.test_figures_drift import (
    CATEGORIES,
    METRICS,
    _cells,
    _check_category_table,
    _check_metric_table,
    _pct,
    _table,
)
from tests.runs.support import write_plan

from tooleval.analysis.figures import VERDICT, RunFigures, estimate_text, run_figures
from tooleval.store import open_store

ROWS = 12
EXPECTED = {
    "refund": ["lookup_order", "issue_refund"],
    "status": ["lookup_order"],
    "billing": ["lookup_order", "get_invoice"],
}
FLAKY = (0, 6)  # refused (503) on their first attempt only
DOWN = 9  # refused on every attempt
WRONG = (1, 4, 10)  # an extra call: tool_call_f1 fails them
UNSCORED = 5  # no expected_tools: unscored


def _cases(stub: AgentStub, folder: Path) -> None:
    lines = []
    for i in range(ROWS):
        category = CATEGORIES[i % 3]
        text, tools = f"case {i}", EXPECTED[category]
        row = {"id": f"r{i}", "category": category, "input": text, "expected_tools": tools}
        if i == UNSCORED:
            row["expected_tools"] = None
        lines.append(json.dumps(row) + "\n")
        if i in FLAKY:
            stub.script(text, tools=tools, fail_times=1, fail_status=503)
        elif i == DOWN:
            stub.script(text, tools=tools, fail_times=10_000, fail_status=503)
        elif i in WRONG:
            stub.script(text, tools=[*tools, "search_faq"])
        else:
            stub.script(text, tools=tools)
    (folder / "cases.jsonl").write_text("".join(lines))


def _tooleval(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, COLUMNS="240", PYTHONPATH=os.pathsep.join(sys.path))
    command = [sys.executable, "-m", "tooleval", *args]
    return subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def e2e(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("e2e")
    db = folder / "runs.db"
    with AgentStub() as stub:
        _cases(stub, folder)
        plan = write_plan(folder, stub, metrics=list(METRICS))
        done = _tooleval(
            "run", str(plan), "--store", str(db), "--repeat", "3", "--min-pass-rate", "0.3",
            "--junit", "run.xml", "--json", "run.json", "--summary-md", "summary.md",
            cwd=folder,
        )  # fmt: skip
        assert done.returncode == 1, done.stderr  # the error budget (0 by default) fails
        from tooleval.cli.main import main

        # the other side of compare, one attempt per row (in process: one interpreter less)
        assert main(["run", str(plan), "--store", str(db), "-q"]) == 1
    store = open_store(db)
    repeated, once = (r.id for r in sorted(store.list_runs(), key=lambda r: r.created_at))
    figures = {rid: run_figures(store, store.get_run(rid)) for rid in (repeated, once)}
    yield {
        "folder": folder,
        "url": f"sqlite:///{db}",
        "store": store,
        "stdout": done.stdout,
        "repeated": repeated,
        "once": once,
        "figures": figures,
    }
    store.close()


def test_the_run_is_what_the_test_needs(e2e) -> None:
    """Repeats, connector errors, unscored rows, flaky rows and categories all present."""
    f: RunFigures = e2e["figures"][e2e["repeated"]]
    assert f.k == 3 and f.rows == 3 * ROWS and f.categories == tuple(sorted(CATEGORIES))
    assert f.errors == 3 + len(FLAKY)  # every attempt of DOWN, the first of each flaky row
    for metric in METRICS:
        assert f.get(metric).unscored == 3  # type: ignore[union-attr]
    assert f.get(VERDICT).flaky == len(FLAKY)  # type: ignore[union-attr]
    assert f.get("tool_call_f1").failed > 0  # type: ignore[union-attr]


def _row(out: str, first: str) -> list[str]:
    """The cells of the table line whose first cell is ``first``."""
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip("│┃ ").split("│")]
        if cells[0] == first:
            return cells
    raise AssertionError(f"no table line for {first!r} in:\n{out}")


def test_runs_own_summary_and_gate_lines(e2e) -> None:
    out, f = e2e["stdout"], e2e["figures"][e2e["repeated"]]
    assert f"per metric ({f.rows} attempts, {f.errors} errors)" in out
    for metric in METRICS:
        m = f.get(metric)
        e = m.pass_rate
        counts = [str(m.passed), str(m.failed), str(m.errors), str(m.unscored), _pct(m.rate)]
        assert _row(out, metric)[2:7] == counts
        assert _row(out, metric)[7] == f"{m.mean_score.value:.3f}"
        gate = next(x for x in out.splitlines() if re.match(rf"gate \w+ +{metric}: ", x))
        assert f"pass rate {m.rate:.1%} ({m.passed} of {m.counted} attempts; " in gate
        assert f"{m.errors} errors count as not passed" in gate
        assert f"{e.interval.method} {e.bounds}, n={e.n}, K=3" in gate
    assert f"errors: {f.errors}/{f.rows} attempts" in out
    # the repeats block: pass^K and pass@K of the row verdict, per category, flaky rows
    verdict = f.get(VERDICT)
    hat = re.search(r"pass\^k .*k=3: ([\d.]+%)", out)
    at = re.search(r"pass@k .*k=3: ([\d.]+%)", out)
    assert hat and hat.group(1) == f"{verdict.pass_hat_k.value:.1%}"
    assert at and at.group(1) == f"{verdict.pass_at_k.value:.1%}"
    for category in CATEGORIES:
        part = f.get(VERDICT, category)
        assert (
            f"  {category}: pass^3 {part.pass_hat_k.value:.1%}, "
            f"pass@3 {part.pass_at_k.value:.1%}, {part.flaky} flaky"
        ) in out
    assert f"flaky rows (pass on some attempts, fail on others): {verdict.flaky}" in out


def test_runs_show_and_runs_list(e2e, capsys, monkeypatch) -> None:
    from tooleval.cli.main import main

    monkeypatch.setenv("COLUMNS", "240")
    for run_id, f in e2e["figures"].items():
        assert main(["runs", "show", run_id, "--store", e2e["url"]]) == 0
        out = capsys.readouterr().out
        for metric in METRICS:
            m = f.get(metric)
            assert f"  {metric}: pass rate {estimate_text(m.pass_rate)}" in out
            assert _row(out, metric)[2:7] == [
                str(m.passed),
                str(m.failed),
                str(m.errors),
                str(m.unscored),
                _pct(m.rate),
            ]
            for category in CATEGORIES:
                part = f.get(metric, category).pass_rate
                assert f"    {category}: {estimate_text(part)}" in out
            if f.k > 1:
                hat, at = m.pass_hat_k, m.pass_at_k
                assert f"pass^3 {hat.value:.1%} {hat.bounds} ({hat.interval.method})" in out
                assert f"pass@3 {at.value:.1%} {at.bounds} ({at.interval.method})" in out
    assert main(["runs", "list", "--store", e2e["url"]]) == 0
    listed = capsys.readouterr().out
    for run_id, f in e2e["figures"].items():
        line = next(x for x in listed.splitlines() if run_id in x)
        for metric in METRICS:
            assert f"{metric} {f.get(metric).rate:.1%}" in line


def test_compare_shows_each_sides_read_model(e2e, capsys, monkeypatch) -> None:
    from tooleval.cli.main import main

    monkeypatch.setenv("COLUMNS", "240")
    a, b = e2e["repeated"], e2e["once"]
    main(["compare", a, b, "--store", e2e["url"]])
    out = capsys.readouterr().out
    assert "unit: dataset rows" in out
    fa, fb = e2e["figures"][a], e2e["figures"][b]
    for metric in METRICS:
        ea, eb = fa.get(metric).pass_rate, fb.get(metric).pass_rate
        assert _row(out, metric)[1] == f"{ea.value:.1%} → {eb.value:.1%}"
        assert f"n={ea.n} rows, K=3/1" in out


def test_the_files_run_wrote_and_the_csv_export(e2e, capsys) -> None:
    import csv

    from tooleval.cli.main import main

    folder, run_id = e2e["folder"], e2e["repeated"]
    f = e2e["figures"][run_id]
    summary = (folder / "summary.md").read_text()
    junit = ET.parse(folder / "run.xml").getroot()
    document = json.loads((folder / "run.json").read_text())
    assert (
        main(["runs", "export", run_id, "--store", e2e["url"], "--csv", str(folder / "r.csv")]) == 0
    )
    capsys.readouterr()
    with (folder / "r.csv").open(newline="") as handle:
        exported = list(csv.DictReader(handle))
    for metric in METRICS:
        m = f.get(metric)
        e = m.pass_rate
        line = next(
            x
            for x in summary.splitlines()
            if x.startswith(f"| {metric.replace('_', chr(92) + '_')} ")
        )
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[1:8] == [
            _pct(m.rate),
            f"{e.bounds} {e.interval.method}, n={e.n}, K=3",
            str(m.passed),
            str(m.failed),
            str(m.errors),
            str(m.unscored),
            f"{m.mean_score.value:.3f}",
        ]
        suite = next(s for s in junit if s.get("name", "").endswith(f".{metric}"))
        props = {p.get("name"): p.get("value") for p in suite.iter("property")}
        assert float(props["pass_rate"]) == pytest.approx(e.value, abs=1e-6)
        assert float(props["pass_rate_low"]) == pytest.approx(e.interval.low, abs=1e-6)
        assert float(props["pass_rate_high"]) == pytest.approx(e.interval.high, abs=1e-6)
        assert props["interval_method"] == e.interval.method
        assert (props["errors"], props["unscored"]) == (str(m.errors), str(m.unscored))
        shown = document["run"]["summaries"][metric]
        assert shown["pass_rate"] == pytest.approx(e.value)
        assert shown["pass_rate_interval"] == e.interval.to_dict()
        assert (shown["passed"], shown["failed"], shown["errors"]) == (m.passed, m.failed, m.errors)
        counts = {"passed": 0, "failed": 0, "errors": 0, "unscored": 0}
        for row in (r for r in exported if r["metric"] == metric):  # a line per row x metric
            if row["error"]:
                counts["errors"] += 1
            elif row["passed"] == "":
                counts["unscored"] += 1
            else:
                counts["passed" if row["passed"] == "True" else "failed"] += 1
        assert counts == {
            "passed": m.passed,
            "failed": m.failed,
            "errors": m.errors,
            "unscored": m.unscored,
        }
    verdict = f.get(VERDICT)
    repeats = document["repeats"]
    assert repeats["pass_hat_k"]["3"] == pytest.approx(verdict.pass_hat_k.value)
    assert repeats["pass_at_k"]["3"] == pytest.approx(verdict.pass_at_k.value)
    assert len(repeats["flaky"]) == verdict.flaky


def test_the_html_report(e2e, capsys) -> None:
    from tooleval.cli.main import main

    for run_id, f in e2e["figures"].items():
        path = e2e["folder"] / f"{run_id}.html"
        assert main(["report", run_id, "--store", e2e["url"], "-o", str(path)]) == 0
        capsys.readouterr()
        page = path.read_text()
        _check_metric_table(page, f)
        _check_category_table(page, f)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_the_viewer_over_http(e2e) -> None:
    import uvicorn

    from tooleval.web import create_app

    port = _free_port()
    config = uvicorn.Config(
        create_app(e2e["store"]), host="127.0.0.1", port=port, log_level="warning"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the viewer did not start"
        time.sleep(0.05)

    def get(path: str) -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=60) as answer:
            return answer.read().decode()

    try:
        front = get("/")
        for run_id, f in e2e["figures"].items():
            row = next(r for r in _cells(_table(front, "runs")) if run_id in r[1])
            for metric in METRICS:
                assert f"{metric} {f.get(metric).rate:.1%}" in row[6]
            page = get(f"/runs/{run_id}")
            _check_metric_table(page, f)
            _check_category_table(page, f)
        a, b = e2e["repeated"], e2e["once"]
        rows = _cells(_table(get(f"/compare?a={a}&b={b}"), "intervals"))
        for metric in METRICS:
            line = next(r for r in rows if r[0] == metric)
            for i, run_id in enumerate((a, b)):
                e = e2e["figures"][run_id].get(metric).pass_rate
                assert line[1 + i].startswith(f"{e.value:.1%} {e.bounds} ")
                assert f"({e.interval.method})" in line[1 + i]
    finally:
        server.should_exit = True
        thread.join(timeout=10)
