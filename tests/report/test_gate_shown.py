"""The gate verdict the run's plan set, in the static report and the Markdown summary."""

from __future__ import annotations

import dataclasses

from tests.web.seed import METRICS, seed_support_runs

from tooleval.analysis.summary_md import run_summary_markdown
from tooleval.report.static import build_report
from tooleval.store import open_store


def _gated(tmp_path, gate):
    store = open_store(tmp_path / "runs.db")
    a, _ = seed_support_runs(store)
    run_id = store.create_run(
        "gated", dataset={}, connector={}, metrics=METRICS, config={"gate": gate}
    )
    store.add_rows(run_id, [dataclasses.replace(r, run_id=run_id) for r in store.iter_rows(a)])
    store.finish_run(run_id)
    return store, run_id


def test_a_failed_gate_names_its_rule_and_figure(tmp_path):
    store, run_id = _gated(tmp_path, {"min_pass_rate": 0.9, "max_error_rate": 0.5})
    html = build_report(store, run_id)
    assert '<h2 class="gate-title gate-fail">Gate failed</h2>' in html
    assert "tool_call_f1: pass rate" in html and "&lt; 90.0%" in html
    text = run_summary_markdown(store, run_id)
    assert "**❌ gate failed**" in text
    assert any(line.startswith("- ❌ tool\\_call\\_f1: pass rate") for line in text.splitlines())
    assert "- ✅ errors: 1/23 rows" in text
    store.close()


def test_a_run_without_a_gate_shows_no_verdict(tmp_path):
    store, run_id = _gated(tmp_path, {"min_pass_rate": None, "max_error_rate": None})
    assert "Gate failed" not in build_report(store, run_id)
    assert "gate failed" not in run_summary_markdown(store, run_id)
    store.close()
