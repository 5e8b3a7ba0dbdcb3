"""BFCL multi-turn run live: a published results file replayed by a model on 127.0.0.1, reproduced.

A model server (tests/episodes/bfcl_replayer.py) answers every turn and step
of each entry as the public glyphh-ada-1.1 ``multi_turn_base`` results in
../shared/data recorded them. ``tooleval run`` puts it through the entries
turn by turn with BFCL's simulated APIs executing the calls
(``tooleval.serving.bfcl:multi_turn``) and writes BFCL's result file. The
file must hold the same calls per turn and step as the published one, and
BFCL's own checker (bfcl-eval's ``multi_turn_checker``), ``tooleval score
--format bfcl`` on that file (the command, in process), the run's ``bfcl_multi_turn`` and BFCL's
published score file must give the same verdict, id for id.

The default suite runs a sample of entries (every 10th, with failures of each
kind); bench/bench_bfcl_live.py runs all 200.
"""

from __future__ import annotations

import json

import pytest
from tests.episodes.bfcl_replayer import Replayer, call_steps, jsonl
from tests.openai_server import OpenAIServer

from tooleval.runs import plan_from_dict, run_plan
from tooleval.store import open_store

pytest.importorskip(
    "bfcl_eval", reason="BFCL's simulated APIs: pip install --no-deps bfcl-eval==2026.3.23"
)
pytest.importorskip("mpmath", reason="BFCL's MathAPI needs mpmath")

from tests.conformance.bfcl_multi_turn_reference import reference_verdict  # noqa: E402

NAME = "BFCL_v4_multi_turn_base"
MODEL = "glyphh-ada-1.1"
ENVIRONMENT = "tooleval.serving.bfcl:multi_turn"


def _public(shared_data):
    root = shared_data / "bfcl"
    questions = jsonl(root / "data" / f"{NAME}.json")
    results = {r["id"]: r for r in jsonl(root / "results" / MODEL / f"{NAME}_result.json")}
    answers = {r["id"]: r["ground_truth"] for r in jsonl(root / "possible_answer" / f"{NAME}.json")}
    scores = jsonl(root / "scores" / MODEL / f"{NAME}_score.json")
    failed = {row["id"]: row["error"]["error_type"] for row in scores[1:]}
    return root, questions, results, answers, failed


def run_live(tmp_path, questions, results, *, concurrency=4):
    """The entries through ``tooleval run``; (stored rows by id, the written result lines by id)."""
    dataset = tmp_path / f"{NAME}.json"  # BFCL's data file layout: one object per line
    dataset.write_text("".join(json.dumps(q) + "\n" for q in questions))
    with OpenAIServer(Replayer(questions, list(results.values()))) as server:
        plan = plan_from_dict(
            {
                "dataset": dataset.name,
                "connector": {"type": "openai", "base_url": server.base_url, "model": MODEL},
                "environment": {
                    "name": ENVIRONMENT,
                    "config": {"results_dir": str(tmp_path / "out" / "live")},
                },
                "metrics": ["bfcl_multi_turn"],
            },
            base_dir=tmp_path,
        )
        with open_store(tmp_path / "runs.db") as store:
            outcome = run_plan(plan, store=store, concurrency=concurrency)
            rows = {row.row_id: row for row in store.iter_rows(outcome.run_id)}
    written = {r["id"]: r for r in jsonl(tmp_path / "out" / "live" / f"{NAME}_result.json")}
    return rows, written


def tooleval_score(tmp_path, root):
    """``tooleval score out/live --format bfcl --data ROOT -o FILE``: (passed, BFCL error type) by id."""
    from tooleval.cli.main import main

    verdicts = tmp_path / "verdicts.jsonl"
    code = main(
        ["score", str(tmp_path / "out" / "live"), "--format", "bfcl", "--data", str(root)]
        + ["-o", str(verdicts)]
    )
    assert code in (0, 1)  # scored: every row passed, or some failed
    return {
        r["id"]: (r["passed"], r["diagnosis"]["details"]["bfcl_error_type"])
        for r in jsonl(verdicts)
    }


def test_a_replayed_results_file_is_reproduced_and_graded_alike(shared_data, tmp_path):
    root, questions, results, answers, published_failed = _public(shared_data)
    sample = [q for q in questions if int(q["id"].rsplit("_", 1)[1]) % 10 == 0]
    rows, written = run_live(tmp_path, sample, results)
    ids = [q["id"] for q in sample]
    assert sorted(rows) == sorted(ids) == sorted(written)
    scored = tooleval_score(tmp_path, root)
    by_id = {q["id"]: q for q in sample}
    disagree = []
    for entry_id in ids:
        row = rows[entry_id]
        assert row.error is None, (entry_id, row.error)
        live = written[entry_id]["result"]
        # the same calls, turn by turn and step by step, with the argument text as sent
        assert call_steps(live) == results[entry_id]["result"], entry_id
        # tooleval executed and recorded each call
        recorded = [c["name"] for c in row.sample.metadata["episode"]["calls"]]
        assert recorded == [n for turn in call_steps(live) for s in turn for c in s for n in c]
        bfcl = reference_verdict(by_id[entry_id], answers[entry_id], live, "fc")
        published = (entry_id not in published_failed, published_failed.get(entry_id))
        ours_verdict = scored[entry_id]
        run_result = row.results[0]
        run_verdict = (run_result.passed, run_result.diagnosis.details["bfcl_error_type"])
        if not (bfcl == published == ours_verdict == run_verdict):
            disagree.append((entry_id, bfcl, published, ours_verdict, run_verdict))
    assert disagree == []
    kinds = {published_failed.get(i) for i in ids}
    assert None in kinds and len(kinds) >= 3  # passes and failures of several kinds


def test_the_model_is_offered_the_entrys_tools_and_sees_bfcls_answers(shared_data, tmp_path):
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import (
        execute_multi_turn_func_call,
    )

    _root, questions, results, _answers, _failed = _public(shared_data)
    entry = next(q for q in questions if q["id"] == "multi_turn_base_1")
    with OpenAIServer(Replayer([entry], [results[entry["id"]]])) as server:
        plan = plan_from_dict(
            {
                "dataset": "q.jsonl",
                "connector": {"type": "openai", "base_url": server.base_url, "model": "m"},
                "environment": ENVIRONMENT,
                "metrics": ["bfcl_multi_turn"],
            },
            base_dir=tmp_path,
        )
        (tmp_path / "q.jsonl").write_text(json.dumps(entry) + "\n")
        with open_store(tmp_path / "runs.db") as store:
            run_plan(plan, store=store, concurrency=1)
        requests = server.requests
    tools = {t["function"]["name"] for t in requests[0]["tools"]}
    assert {"ls", "cd", "mv"} <= tools and "add" not in tools  # GorillaFileSystem, not MathAPI
    # the tool messages are what BFCL's own execution answers, call for call
    calls = [
        f"{name}({','.join(f'{k}={v!r}' for k, v in json.loads(args).items())})"
        for turn in results[entry["id"]]["result"]
        for step in turn
        for item in step
        for name, args in item.items()
    ]
    answers, _ = execute_multi_turn_func_call(
        calls, entry["initial_config"], entry["involved_classes"], "live_test", entry["id"]
    )
    seen = [m["content"] for m in requests[-1]["messages"] if m["role"] == "tool"]
    assert seen == answers
    # each turn starts with the entry's own user message, in order
    said = [m["content"] for m in requests[-1]["messages"] if m["role"] == "user"]
    assert said == [turn[0]["content"] for turn in entry["question"]]
