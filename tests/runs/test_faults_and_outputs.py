"""Issue 10 reproducers 6, 8, 10, 11 and issue 13's retry and cluster items.

A faulty agent on 127.0.0.1 (500s with ANSI and NUL in the body, 200 OK
with a truncated body) drives real runs; the JUnit file is read back with
ElementTree and junitparser, as CI servers read it.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import orjson
import pytest
import yaml
from tests.runs.support import script_correct, write_dataset, write_plan

from tooleval.analysis import cluster_failures
from tooleval.cli.main import main
from tooleval.store import open_store

HOSTILE = (
    "\x1b[31mERROR\x1b[0m upstream \x00\x07 request {attempt} \u202egnp.exe \x1b]8;;http://x\x07"
)


def _run(*args: str) -> int:
    return main(["run", *args, "--quiet"])


def _retry(plan, **retry):
    data = yaml.safe_load(plan.read_text())
    data["connector"]["retry"] = retry
    plan.write_text(yaml.safe_dump(data, sort_keys=False))


# ---------------------------------------------------------------- reproducer 6
def test_control_characters_in_an_error_body_never_break_junit(tmp_path, agent_stub, capsys):
    junitparser = pytest.importorskip("junitparser")
    write_dataset(tmp_path / "cases.jsonl")
    script_correct(agent_stub)
    agent_stub.script("cancel order 5502", fail_times=99, fail_status=500, fail_body=HOSTILE)
    plan = write_plan(tmp_path, agent_stub)
    junit = tmp_path / "reports" / "junit.xml"  # the folder is created
    db = tmp_path / "r.db"
    assert _run(str(plan), "--store", str(db), "--junit", str(junit)) == 1
    root = ET.parse(junit).getroot()
    (error,) = root.iter("error")
    message = error.get("message")
    assert "ERROR upstream \\x00\\x07 request 1 <U+202E>gnp.exe" in message
    assert "\x1b" not in junit.read_text(encoding="utf-8")
    parsed = junitparser.JUnitXml.fromfile(str(junit))
    assert sum(suite.errors for suite in parsed) == 1
    assert (
        main(["runs", "show", next(iter(open_store(db).list_runs())).id, "--store", str(db)]) == 0
    )
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\u202e" not in out and "<U+202E>" in out


def test_a_bad_junit_path_fails_before_the_run(tmp_path, agent_stub, capsys):
    write_dataset(tmp_path / "cases.jsonl")
    plan = write_plan(tmp_path, agent_stub)
    db = tmp_path / "r.db"
    assert _run(str(plan), "--store", str(db), "--junit", str(tmp_path)) == 2
    assert "field --junit:" in capsys.readouterr().err
    dataset = tmp_path / "cases.jsonl"
    before = dataset.read_bytes()
    for target in (plan, dataset, db):
        assert _run(str(plan), "--store", str(db), "--json", str(target)) == 2
        err = capsys.readouterr().err
        assert "field --json" in err and "is also an input file" in err
    assert dataset.read_bytes() == before
    (tmp_path / "file").write_text("x")
    assert _run(str(plan), "--store", str(db), "--junit", str(tmp_path / "file" / "j.xml")) == 2
    assert "field --junit" in capsys.readouterr().err
    assert agent_stub.requests == []
    assert not db.exists() or open_store(db).list_runs() == []


def test_a_directory_as_junit_names_the_option(tmp_path, agent_stub, capsys):
    write_dataset(tmp_path / "cases.jsonl")
    plan = write_plan(tmp_path, agent_stub)
    assert _run(str(plan), "--store", str(tmp_path / "r.db"), "--junit", str(tmp_path)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "field --junit" in err and "directory" in err
    assert agent_stub.requests == []


# ---------------------------------------------------------------- reproducer 8
def test_a_200_with_an_unreadable_body_is_retried_and_counted_apart(tmp_path, agent_stub):
    write_dataset(tmp_path / "cases.jsonl")
    script_correct(agent_stub)
    agent_stub.script("cancel order 4471", tools=["lookup_order", "cancel_order"], garbage_times=1)
    agent_stub.script(
        "cancel order 5502",
        tools=["lookup_order", "cancel_order"],
        fail_times=1,
        fail_status=503,
        garbage_times=1,
    )
    agent_stub.script("where is order 8888", garbage_times=9)
    plan = write_plan(tmp_path, agent_stub)
    _retry(plan, retries=2, backoff=0.01, jitter=0)
    db = tmp_path / "r.db"
    assert _run(str(plan), "--store", str(db)) == 1  # s2 stays unreadable: one error row
    with open_store(db) as store:
        (run,) = store.list_runs()
        rows = {r.row_id: r for r in store.iter_rows(run.id)}
    assert rows["c1"].error is None and rows["c1"].results[0].passed
    assert rows["c1"].sample.metadata["connector_retries"] == {"invalid_body": 1}
    assert rows["c2"].sample.metadata["connector_retries"] == {"http": 1, "invalid_body": 1}
    assert "not JSON" in rows["s2"].error
    assert "[after 3 attempts (2 retried for an unreadable body)]" in rows["s2"].error
    assert agent_stub.attempts("where is order 8888") == 3
    assert "connector_retries" not in rows["r1"].sample.metadata


def test_the_unreadable_body_retry_can_be_turned_off(tmp_path, agent_stub):
    write_dataset(tmp_path / "cases.jsonl")
    script_correct(agent_stub)
    agent_stub.script("cancel order 4471", garbage_times=1)
    plan = write_plan(tmp_path, agent_stub)
    _retry(plan, retries=2, backoff=0.01, invalid_body=False)
    assert _run(str(plan), "--store", str(tmp_path / "r.db")) == 1
    assert agent_stub.attempts("cancel order 4471") == 1


# ---------------------------------------------------------------- reproducer 11
def test_error_clusters_are_keyed_by_class_and_status_not_body_text(tmp_path, agent_stub, capsys):
    write_dataset(tmp_path / "cases.jsonl")
    script_correct(agent_stub)
    # Each failing row answers with its own body (request ids, timestamps).
    for text, status in (
        ("cancel order 4471", 500),
        ("cancel order 5502", 500),
        ("refund 30 USD on 4471", 500),
        ("refund 12 USD on 9001", 503),
    ):
        body = f"<html>trace {text} id={{attempt}}-{hash(text)} \x1b[1mfail\x1b[0m</html>"
        agent_stub.script(text, fail_times=99, fail_status=status, fail_body=body)
    agent_stub.script("where is order 8888", tools=["search_orders"])
    plan = write_plan(tmp_path, agent_stub)
    db = tmp_path / "r.db"
    assert _run(str(plan), "--store", str(db)) == 1
    with open_store(db) as store:
        (run,) = store.list_runs()
        clusters = cluster_failures(store.iter_rows(run.id))
    keys = [(c.failure_class, c.detail, c.count, c.example) for c in clusters]
    assert keys == [
        ("error", "connector error: HTTP 500", 3, "c1"),
        ("error", "connector error: HTTP 503", 1, "r2"),
        ("missing_tool", "called search_orders instead of lookup_order", 1, "s2"),
    ]
    assert clusters[0].to_dict()["example_row"] == "c1"
    assert main(["runs", "show", run.id, "--store", str(db)]) == 0
    out = capsys.readouterr().out
    start = out.index("5 failing rows → 3 clusters")
    clusters_table = out[start : out.index("failing rows", start + 30)]
    assert "connector error: HTTP 500" in clusters_table and "<html>" not in clusters_table


# ---------------------------------------------------------------- reproducer 10
def test_a_score_drop_that_still_passes_is_not_unchanged(tmp_path, agent_stub, capsys):
    write_dataset(tmp_path / "cases.jsonl")
    script_correct(agent_stub)
    db = tmp_path / "r.db"
    plan = write_plan(tmp_path, agent_stub)
    assert _run(str(plan), "--store", str(db)) == 0
    # s1 now also calls an extra tool: 1.0 -> 0.5, still >= the 0.5 threshold.
    agent_stub.script("where is order 7777", tools=["lookup_order", "search_orders"])
    assert _run(str(plan), "--store", str(db)) == 0
    with open_store(db) as store:
        b, a = (r.id for r in store.list_runs())
    out_json = tmp_path / "cmp.json"
    assert main(["compare", a, b, "--store", str(db), "--json", str(out_json)]) == 0
    out = capsys.readouterr().out
    assert "score down (same verdict) (1)" in out and "1.000 → 0.500" in out
    counts = orjson.loads(out_json.read_bytes())["metrics"]["tool_correctness"]
    assert (counts["score_down"], counts["unchanged"], counts["regressed"]) == (1, 5, 0)
    assert main(["compare", a, b, "--store", str(db), "--fail-on-regression"]) == 0
    assert main(["compare", a, b, "--store", str(db), "--fail-on-score-drop"]) == 1
    assert main(["compare", b, a, "--store", str(db), "--fail-on-score-drop"]) == 0  # a rise
