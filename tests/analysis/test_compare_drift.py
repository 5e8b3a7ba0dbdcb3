"""One comparison, one truth: ``compare`` of a run made once with a run of 3 attempts a row.

The runs of :mod:`tests.analysis.test_figures_drift` (error rows, unscored rows,
categories, flaky rows) are compared through ``tooleval compare`` (terminal and JSON),
the viewer's compare page and the static compare report, and every count, unit, paired
Δ, interval and verdict read back is the one :func:`compare_runs` result's.
"""

from __future__ import annotations

import json

import pytest
from tests.analysis.test_figures_drift import METRICS, _cells, _store_run, _table, _text

from tooleval.analysis.compare import compare_runs
from tooleval.analysis.stat_lines import compare_line, pts
from tooleval.store import open_store


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory):
    db = tmp_path_factory.mktemp("compare-drift") / "runs.db"
    once = _store_run(db, "once", k=1, seed=11)
    repeated = _store_run(db, "repeated", k=3, seed=12)
    store = open_store(db)
    comparison = compare_runs(store, once, repeated, statistics={})
    yield {"db": db, "store": store, "a": once, "b": repeated, "comparison": comparison}
    store.close()


def test_rows_are_paired_on_dataset_rows_and_counts_agree_with_the_statistics(pair) -> None:
    c = pair["comparison"]
    assert c.attempts == (1, 3) and c.unit.startswith("dataset rows")
    assert "A 1, B 3 per row" in c.unit
    for metric in METRICS:
        counts = c.metrics[metric]
        # every dataset row is in both runs: no attempt turns into a "new" row
        assert counts.new == 0 and counts.missing == 0
        stats = next(s for s in c.statistics if s.metric == metric and s.slice == "(all)")
        assert counts.paired == stats.stats.n
        assert counts.paired + counts.unscored <= 60
        mc = stats.stats.mcnemar
        assert mc is None  # 3 attempts on one side: the sign-flip test, not McNemar
    # a row's change follows its pass rate over attempts, never its first attempt alone
    for d in c.rows:
        if d.change in ("fixed", "regressed"):
            assert d.attempts_b in (1, 2, 3) and d.attempts_a == 1
            assert (d.rate_b > d.rate_a) == (d.change == "fixed")
        if d.change in ("unchanged", "score_up", "score_down"):
            assert d.rate_a == d.rate_b


def test_cli_json_and_terminal_carry_the_same_comparison(pair, tmp_path, capsys, monkeypatch):
    from tooleval.cli.main import main

    monkeypatch.setenv("COLUMNS", "400")
    out_json = tmp_path / "cmp.json"
    url = f"sqlite:///{pair['db']}"
    code = main(["compare", pair["a"], pair["b"], "--store", url, "--json", str(out_json)])
    assert code == 0
    out = capsys.readouterr().out
    c = pair["comparison"]
    document = json.loads(out_json.read_text())
    assert document["unit"] == c.unit and f"unit: {c.unit}" in out
    for metric in METRICS:
        assert document["metrics"][metric] == c.metrics[metric].to_dict()
        line = next(x for x in out.splitlines() if x.replace("│", " ").split()[:1] == [metric])
        cells = line.replace("│", " ").split()
        counts = c.metrics[metric]
        assert cells[-8:] == [
            str(counts.fixed),
            str(counts.regressed),
            str(counts.score_down),
            str(counts.score_up),
            str(counts.unchanged),
            str(counts.new),
            str(counts.missing),
            str(counts.unscored),
        ]
    for s, entry in zip(c.statistics, document["statistics"], strict=True):
        assert compare_line(s) in out
        assert entry["n"] == s.stats.n and entry["verdict"]["kind"] == s.verdict.kind


def _check_paired(page: str, c) -> None:
    text = _text(page)
    assert c.unit in text
    rows = _cells(_table(page, "intervals"))
    for s in c.statistics:
        i = s.stats.interval
        name = s.metric if s.slice == "(all)" else f"{s.metric} · {s.slice}"
        line = next(r for r in rows if r[0] == name)
        # the Δ with its interval, then the bar's accessible name: the terminal's line
        assert line[3] == f"Δ {pts(s.stats.delta)} pts [{pts(i.low)}, {pts(i.high)}] " + (
            compare_line(s)
        )
        assert line[4] == f"{s.verdict.label} n={s.stats.n} dataset rows"
    metric_rows = _cells(_table(page[page.index('class="runs-compared"') :], "summary"))
    for metric in METRICS:
        counts = c.metrics[metric]
        line = next(r for r in metric_rows if r[0] == metric)
        assert line[3:5] == [str(counts.fixed), str(counts.regressed)], line


def test_viewer_and_static_report_render_the_same_comparison(pair) -> None:
    from fastapi.testclient import TestClient

    from tooleval.report.static import build_report
    from tooleval.web import create_app

    c = pair["comparison"]
    store = pair["store"]
    with TestClient(create_app(store), base_url="http://127.0.0.1:8765") as client:
        viewer = client.get(f"/compare?a={pair['a']}&b={pair['b']}").text
    _check_paired(viewer, c)
    report = build_report(store, pair["b"], compare_with=pair["a"])
    _check_paired(report, c)
    assert report.count('class="delta-bar"') == len(c.statistics)


def test_the_matrix_has_one_line_per_dataset_row_and_a_repeated_runs_cell_counts_attempts(pair):
    from tooleval.report.matrix import run_matrix

    store = pair["store"]
    runs = [store.get_run(pair["a"]), store.get_run(pair["b"])]
    rows = run_matrix(store, runs)
    assert sorted(r.row_id for r in rows) == sorted(f"q{i}" for i in range(60))
    by_id = {d.row_id: d for d in pair["comparison"].rows if d.metric == METRICS[0]}
    for row in rows:
        once, thrice = row.cells
        assert once[3][1] == 1 and thrice[3][1] == 3  # attempts: 1 in A, 3 in B
        # errors count as not passed; a cell passes only when every attempt passed
        assert thrice[0] is (thrice[3][0] == 3)
        assert row.indexes[1] == by_id[row.row_id].index_b


def test_the_markdown_summary_carries_the_same_comparison(pair) -> None:
    from tooleval.analysis.summary_md import md_text, run_summary_markdown

    store, c = pair["store"], pair["comparison"]
    text = run_summary_markdown(store, pair["b"], baseline=pair["a"])
    assert f"({c.unit})" in text
    for s in c.statistics:
        if s.slice == "(all)":
            assert f"- **{md_text(s.metric)}**: {compare_line(s)}" in text
    for t in c.too_small:
        assert md_text(t.text, 300) in text
