"""The CI options of `tooleval run` and `tooleval runs export`, end to end over HTTP."""

from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET

import pytest
from tests.runs.support import script_correct, write_dataset, write_plan

from tooleval.analysis.summary_md import md_text
from tooleval.cli.main import main
from tooleval.store import open_store


def _setup(tmp_path, stub, **extra):
    write_dataset(tmp_path / "cases.jsonl")
    script_correct(stub)
    stub.script("cancel order 5502", tools=["lookup_order", "cancel_order"], fail_times=1)
    stub.script("where is order 8888", tools=["search_orders"])
    extra.setdefault("gate", {"require_any_pass": False})  # rows fail on purpose
    return write_plan(tmp_path, stub, metrics=["tool_correctness"], concurrency=1, **extra)


def _ids(db):
    with open_store(db) as store:
        return [r.id for r in store.list_runs()]


def test_repeat_gate_on_pass_at_k_and_pass_hat_k(tmp_path, agent_stub, capsys, monkeypatch):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    plan = _setup(tmp_path, agent_stub)
    db = tmp_path / "runs.db"
    base = ["run", str(plan), "--store", str(db), "--quiet", "--repeat", "3"]
    gate = ["--min-pass-rate", "0.8", "--max-error-rate", "0.2"]
    assert main([*base, *gate, "--gate-on", "pass@k"]) == 0
    out = capsys.readouterr().out
    assert "repeats: 3 attempts per row, 6 rows complete" in out
    assert "pass@3 83.3% over 6 rows >= 80.0%" in out
    assert "flaky rows (pass on some attempts, fail on others): 1" in out
    assert "c2: 2/3 passed [EPP]" in out


def test_repeat_gate_on_pass_hat_k_fails_a_flaky_agent(tmp_path, agent_stub, capsys):
    plan = _setup(tmp_path, agent_stub)
    db = tmp_path / "runs.db"
    base = ["run", str(plan), "--store", str(db), "--quiet", "--repeat", "3"]
    gate = ["--min-pass-rate", "0.8", "--max-error-rate", "0.2"]
    assert main([*base, *gate, "--gate-on", "pass^k"]) == 1
    assert "pass^3 66.7% over 6 rows < 80.0%" in capsys.readouterr().out


def test_the_stored_gate_is_the_one_the_command_line_gated_on(tmp_path, agent_stub, capsys):
    """runs show, the viewer and the report check the flags' gate, pass^k included."""
    from tooleval.analysis.gate import stored_gate

    plan = _setup(tmp_path, agent_stub)
    db = tmp_path / "runs.db"
    base = ["run", str(plan), "--store", str(db), "--quiet", "--repeat", "3"]
    assert main([*base, "--min-pass-rate", "0.8", "--gate-on", "pass^k"]) == 1
    capsys.readouterr()
    with open_store(db) as store:
        (run,) = store.list_runs()
        assert run.config["gate"]["gate_on"] == "pass^k"
        assert run.config["gate"]["min_pass_rate"] == 0.8  # the flag's, not the plan's
        for gate in (stored_gate(run, store=store), stored_gate(run, rows=store.iter_rows(run.id))):
            assert gate is not None and not gate.passed
            assert any("pass^3 66.7% over 6 rows < 80.0%" in c.message for c in gate.checks)
    assert main(["runs", "show", run.id, "--store", str(db)]) == 0
    assert "pass^3 66.7% over 6 rows < 80.0%" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--repeat", "0"], "--repeat"),
        (["--gate-on", "pass^k"], "need --repeat"),
        (["--max-rps", "0"], "--max-rps"),
        (["--cache-file", "x.db"], "--cache-file needs --cache"),
        # a file where a folder should be (missing folders are made, as for every output)
        (["--summary-md", "TMP/cases.jsonl/s.md"], "--summary-md"),
        # an option that only matters with another is refused alone, never ignored
        (["--baseline", "abc123"], "--baseline needs --summary-md"),
        # no file tooleval writes may be the store, the plan or the dataset
        (["--cache", "--cache-file", "TMP/r.db"], "is the run store's file"),
        (["--cache", "--cache-file", "TMP/cases.jsonl"], "is also an input file"),
        (["--junit", "TMP/r.db"], "--junit"),
        (["--json", "TMP/PLAN"], "--json"),
        (["--summary-md", "TMP/cases.jsonl"], "--summary-md"),
        (["--junit", "TMP/o.xml", "--json", "TMP/o.xml"], "name the same file"),
    ],
)
def test_bad_ci_options_are_one_line_exit_2_before_any_call(
    tmp_path, agent_stub, capsys, monkeypatch, argv, message
):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    plan = _setup(tmp_path, agent_stub)
    argv = [a.replace("TMP", str(tmp_path)).replace("PLAN", plan.name) for a in argv]
    with open_store(tmp_path / "r.db"):
        pass  # an existing store, which a bad option must leave alone
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["run", str(plan), "--store", str(tmp_path / "r.db"), "--quiet", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err
    assert agent_stub.requests == []
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing made or replaced


def test_cache_then_summary_and_step_summary(tmp_path, agent_stub, capsys, monkeypatch):
    plan = _setup(tmp_path, agent_stub)
    db = tmp_path / "runs.db"
    step = tmp_path / "step.md"
    step.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step))
    args = ["run", str(plan), "--store", str(db), "--quiet", "--max-error-rate", "1"]
    assert main([*args, "--cache"]) == 0
    assert "0 hits, 6 calls, 5 stored" in capsys.readouterr().out
    assert (tmp_path / "responses.db").exists()
    calls = len(agent_stub.requests)
    summary = tmp_path / "out.md"
    baseline = _ids(db)[0]
    argv = [*args, "--cache", "--summary-md", str(summary), "--baseline", baseline]
    assert main(argv) == 0
    assert "5 hits, 1 calls, 1 stored" in capsys.readouterr().out
    assert len(agent_stub.requests) == calls + 1
    text = summary.read_text()
    assert text.startswith("## tooleval run `support`")
    assert "| tool\\_correctness | 83.3% | [" in text and "K=1 | 5 | 1 | 0 |" in text
    assert "Top failure clusters (1 failing rows → 1 causes)" in text
    assert "| s2 |" in text  # the example row of the cluster
    assert f"Against baseline `{baseline}`" in text and "0 row × metric regressed" in text
    assert step.read_text().startswith("earlier step\n## tooleval run")
    with pytest.raises(SystemExit) as stop:  # argparse: the two cannot go together
        main([*args, "--no-cache", "--refresh-cache"])
    assert stop.value.code == 2


def test_runs_export_writes_every_format_for_a_stored_run(tmp_path, agent_stub, capsys):
    plan = _setup(tmp_path, agent_stub)
    agent_stub.script("where is order 7777", tools=["=HYPERLINK(1)"])
    db = tmp_path / "runs.db"
    assert main(["run", str(plan), "--store", str(db), "--quiet", "--repeat", "2"]) == 1
    (run_id,) = _ids(db)
    out = tmp_path / "exports"
    out.mkdir()
    argv = ["runs", "export", run_id[:12], "--store", str(db), "--min-pass-rate", "0.5"]
    files = ["--junit", str(out / "j.xml"), "--json", str(out / "r.json")]
    files += ["--csv", str(out / "r.csv"), "--summary-md", str(out / "s.md")]
    capsys.readouterr()
    assert main([*argv, *files]) == 0
    suite = ET.parse(out / "j.xml").getroot()
    assert len(suite.findall(".//testcase")) == 12
    document = json.loads((out / "r.json").read_text())
    assert document["run"]["config"]["repeat"] == {"n": 2, "stride": 6}
    assert document["gate"]["checks"][0]["required"] == 0.5
    with (out / "r.csv").open() as handle:
        lines = list(csv.DictReader(handle))
    assert len(lines) == 12 and lines[7]["row_id"] == "c2#2"
    assert "Repeats: 2 attempts per row" in (out / "s.md").read_text()
    assert "wrote" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv,message",
    [
        ([], "give at least one of"),
        (["--json", "same.json", "--csv", "same.json"], "name the same file"),
        (["--json", "x.json", "--min-pass-rate", "3"], "between 0 and 1"),
    ],
)
def test_export_usage_errors(tmp_path, agent_stub, capsys, monkeypatch, argv, message):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.chdir(tmp_path)
    plan = _setup(tmp_path, agent_stub)
    db = tmp_path / "runs.db"
    main(["run", str(plan), "--store", str(db), "--quiet"])
    (run_id,) = _ids(db)
    capsys.readouterr()
    assert main(["runs", "export", run_id, "--store", str(db), *argv]) == 2
    assert message in capsys.readouterr().err


def test_unknown_run_export_is_exit_2(tmp_path, capsys):
    argv = ["runs", "export", "nope", "--store", str(tmp_path / "r.db"), "--json", "x.json"]
    assert main(argv) == 2


def test_markdown_from_the_agent_is_inert():
    hostile = "<img src=x onerror=alert(1)> | @org/team ![x](http://e) `code`"
    text = md_text(hostile)
    assert "<" not in text and "|" not in text.replace("\\|", "")
    assert "@\u200borg" in text and "\\[x\\]" in text
