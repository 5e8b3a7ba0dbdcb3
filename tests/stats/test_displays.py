"""Where the intervals show: report and viewer tables, Markdown summary, JUnit, score --table."""

from __future__ import annotations

import json
import random
import xml.etree.ElementTree as ET

from tests.stats.conftest import store_run

from tooleval.analysis.export import write_junit
from tooleval.analysis.figures import run_figures
from tooleval.analysis.gate import GateSpec, evaluate_gate
from tooleval.analysis.summary_md import run_summary_markdown
from tooleval.cli.main import main
from tooleval.report.run_tables import metric_summary_table
from tooleval.report.static import category_section
from tooleval.store import open_store


def test_report_tables_draw_interval_bars(db):
    run_id = store_run(db, "a", [[True]] * 17 + [[False]] * 3, categories=["refund"] * 20)
    with open_store(db) as store:
        run = store.get_run(run_id)
        figures = run_figures(store, run)
    table = str(metric_summary_table(run, figures))
    assert 'class="ci-bar"' in table and "95% interval 64.0–94.8% (wilson)" in table
    section = str(category_section(figures))
    assert "95% interval 64.0–94.8%" in section and "ci-bar" in section


def test_markdown_summary_has_intervals_and_the_comparison_line(db):
    rng = random.Random(3)
    a = [[rng.random() < 0.85] for _ in range(300)]
    b = [[v and rng.random() > 0.25] for (v,) in a]
    run_a, run_b = store_run(db, "a", a), store_run(db, "b", b)
    with open_store(db) as store:
        text = run_summary_markdown(store, run_b, baseline=run_a)
    assert "| 95% interval |" in text and "n=300, K=1" in text
    line = next(x for x in text.splitlines() if x.startswith("- **tool\\_correctness**"))
    assert "Δ −" in line and "regressed" in line and "McNemar p" in line
    assert "MDE@80%" in line and line.endswith("REGRESSION")


def test_junit_properties_carry_the_interval_and_gate_outcome(db, tmp_path):
    run_id = store_run(db, "a", [[True]] * 42 + [[False]] * 8)
    with open_store(db) as store:
        run = store.get_run(run_id)
        gate = evaluate_gate(run, GateSpec(min_pass_rate=0.8, confidence=0.95))
        path = write_junit(tmp_path / "j.xml", store, run, gate=gate)
    suite = ET.parse(path).getroot().find("testsuite")
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["pass_rate"] == "0.840000" and props["interval_method"] == "wilson"
    assert float(props["pass_rate_low"]) < 0.8 < float(props["pass_rate_high"])
    assert props["rows"] == "50" and props["attempts_per_row"] == "1"
    assert props["gate"] == "uncertain" and "on_uncertain: fail" in props["gate_check"]


def test_score_table_summary_has_the_interval(tmp_path, capfd):
    rows = [
        {"id": f"r{i}", "tools_called": ["a"], "expected_tools": ["a" if i % 4 else "b"]}
        for i in range(20)
    ]
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    out = tmp_path / "out.jsonl"
    main(["score", str(path), "--metric", "tool_correctness", "--table", "--output", str(out)])
    captured = capfd.readouterr()
    err = captured.out + captured.err
    assert "interval" in err and "[53.1, 88.8]" in err  # Wilson of 15/20
