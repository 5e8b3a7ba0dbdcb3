"""BFCL multi-turn: tooleval's verdicts against BFCL's own ``multi_turn_checker``, id for id.

The reference is BFCL's evaluator from the installed ``bfcl-eval`` (run here, in
the test); tooleval never evaluates model output. Agreement is checked on the
public ``multi_turn_base`` results in ../shared/data and on seeded mutations of
the ground truth of every multi-turn category (wrong argument, missing call,
extra write, reordered writes, undecodable step, prompt-style text): the first 8
entries of each category by default, every entry with ``TOOLEVAL_CONFORMANCE=full``.
"""

from __future__ import annotations

import json

import pytest
from tests.conformance.bfcl_multi_turn_reference import (
    MUTATIONS,
    load_multi_turn,
    mutate,
    reference_verdict,
)
from tests.conformance.conformance_mode import full_only

pytest.importorskip(
    "bfcl_eval", reason="BFCL's evaluator: pip install --no-deps bfcl-eval==2026.3.23"
)
pytest.importorskip("mpmath", reason="BFCL's MathAPI needs mpmath")

from tooleval.benchmarks.bfcl.multi_turn import (  # noqa: E402
    MULTI_TURN_CATEGORIES,
    check_entry,
    multi_turn_result,
)
from tooleval.benchmarks.bfcl.multi_turn_env import BfclApis, api_version  # noqa: E402


def _jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_agrees_with_bfcl_on_the_public_multi_turn_base_results(shared_data):
    root = shared_data / "bfcl"
    questions = {e["id"]: e for e in _jsonl(root / "data" / "BFCL_v4_multi_turn_base.json")}
    answers = {
        e["id"]: e["ground_truth"]
        for e in _jsonl(root / "possible_answer" / "BFCL_v4_multi_turn_base.json")
    }
    results = _jsonl(root / "results" / "glyphh-ada-1.1" / "BFCL_v4_multi_turn_base_result.json")
    stored = _jsonl(root / "scores" / "glyphh-ada-1.1" / "BFCL_v4_multi_turn_base_score.json")
    stored_failed = {row["id"]: row["error"]["error_type"] for row in stored[1:]}
    disagree, ours_failed = [], {}
    for row in results:
        entry, truth = questions[row["id"]], answers[row["id"]]
        ours = check_entry(entry, truth, row["result"], mode="fc")
        theirs = reference_verdict(entry, truth, row["result"], "fc")
        if (ours.valid, ours.error_type) != theirs:
            disagree.append((row["id"], theirs, ours.error_type))
        if not ours.valid:
            ours_failed[row["id"]] = ours.error_type
    assert disagree == []
    assert len(results) == 200
    # and with the score file BFCL wrote for these results (the same version of the data)
    assert ours_failed == stored_failed
    assert 200 - len(ours_failed) == stored[0]["correct_count"] == 121


def _agreement(category: str, entries: int) -> list[tuple[str, str, object, object]]:
    disagree = []
    for seed, (entry, truth) in enumerate(load_multi_turn(category)[:entries]):
        for kind in MUTATIONS:
            result, mode = mutate(truth, kind, seed)
            ours = check_entry(entry, truth, result, mode=mode)
            theirs = reference_verdict(entry, truth, result, mode)
            if (ours.valid, ours.error_type) != theirs:
                disagree.append((entry["id"], kind, theirs, (ours.valid, ours.error_type)))
    return disagree


@pytest.mark.parametrize("category", MULTI_TURN_CATEGORIES)
def test_agrees_with_bfcl_on_seeded_mutations(category):
    assert _agreement(category, 8) == []


@full_only
@pytest.mark.parametrize("category", MULTI_TURN_CATEGORIES)
def test_agrees_with_bfcl_on_every_entry_and_mutation(category):
    # every entry of every category (about 25 CPU-s): make conformance; the suite checks the
    # first 8 entries of each category with every mutation above
    assert _agreement(category, 10_000) == []


def _math_entry(**extra):
    return {
        "id": "multi_turn_base_900",
        "involved_classes": ["MathAPI"],
        "initial_config": {},
        **extra,
    }


def test_each_rule_of_the_checker_as_bfcl_decides_it():
    entry = _math_entry()
    add = [{"add": '{"a": 1, "b": 2}'}]
    assert check_entry(entry, [["add(a=1, b=2)"]], [[add]]).valid
    # an empty-reference turn is executed but not checked; an empty model turn fails
    assert check_entry(entry, [[], ["add(a=1, b=2)"]], [[add], [add]]).valid
    empty = check_entry(entry, [["add(a=1, b=2)"]], [[]])
    assert empty.error_type == "multi_turn:empty_turn_model_response" and empty.turn == 0
    # an undecodable step is skipped, not failed
    assert check_entry(entry, [["add(a=1, b=2)"]], [[[{"add": "{not json"}], add]]).valid
    # the reference results must be among the model's results so far (a multiset)
    wrong = check_entry(entry, [["add(a=1, b=2)"]], [[[{"add": '{"a": 1, "b": 3}'}]]])
    assert wrong.error_type == "multi_turn:execution_response_mismatch"
    assert wrong.missing_results == ['{"result": 3}']
    # ... of this turn and earlier ones: a result from turn 0 answers turn 1 too
    other = [{"mean": '{"numbers": [1.0]}'}]
    assert check_entry(entry, [["add(a=1, b=2)"], ["add(a=1, b=2)"]], [[add], [other]]).valid
    twice = check_entry(entry, [["add(a=1, b=2)", "add(a=1, b=2)"]], [[add]])
    assert twice.error_type == "multi_turn:execution_response_mismatch"  # a multiset
    for truth, result in [
        ([[], ["add(a=1, b=2)"]], [[add], [add]]),
        ([["add(a=1, b=2)"]], [[]]),
        ([["add(a=1, b=2)"]], [[[{"add": "{not json"}], add]]),
        ([["add(a=1, b=2)"], ["add(a=1, b=2)"]], [[add], [other]]),
        ([["add(a=1, b=2)", "add(a=1, b=2)"]], [[add]]),
    ]:
        ours = check_entry(entry, truth, result)
        assert (ours.valid, ours.error_type) == reference_verdict(entry, truth, result, "fc")
    assert (
        check_entry(entry, [["add(a=1, b=2)"]], "text").error_type == "multi_turn:inference_error"
    )
    assert (
        check_entry(entry, [["add(a=1, b=2)"]], [[add], [add]]).error_type
        == "multi_turn:force_terminated"
    )


def test_state_mismatch_lists_the_differing_attributes():
    entry = {
        "id": "multi_turn_base_901",
        "involved_classes": ["GorillaFileSystem"],
        "initial_config": {
            "GorillaFileSystem": {"root": {"alex": {"type": "directory", "contents": {}}}}
        },
    }
    result = [[[{"mkdir": '{"dir_name": "b"}'}]]]
    verdict = check_entry(entry, [["mkdir(dir_name='a')"]], result)
    assert verdict.error_type == "multi_turn:instance_state_mismatch"
    assert verdict.differences and verdict.differences[0]["class"] == "GorillaFileSystem"
    assert (
        verdict.error_type == reference_verdict(entry, [["mkdir(dir_name='a')"]], result, "fc")[1]
    )


def test_the_long_context_flag_loads_the_long_scenario():
    config = {"GorillaFileSystem": {"root": {"alex": {"type": "directory", "contents": {}}}}}
    short = BfclApis(["GorillaFileSystem"], config, long_context=False)
    long = BfclApis(["GorillaFileSystem"], config, long_context=True)
    assert short.instances["GorillaFileSystem"].long_context is False
    assert long.instances["GorillaFileSystem"].long_context is True
    entry = {
        "id": "multi_turn_long_context_9",
        "involved_classes": ["GorillaFileSystem"],
        "initial_config": config,
    }
    result = [[[{"ls": "{}"}]]]
    assert check_entry(entry, [["ls()"]], result).valid  # both sides long: the same listing
    assert reference_verdict(entry, [["ls()"]], result, "fc") == (True, None)


@pytest.mark.parametrize(
    ("name", "arguments", "answer"),
    [
        ("__import__", {"name": "os"}, "Error during execution: name '__import__' is not defined"),
        ("eval", {"source": "1"}, "Error during execution: name 'eval' is not defined"),
        ("len", {"obj": "abc"}, "Error during execution: name 'len' is not defined"),
        ("add.__globals__", {}, "Error during execution: invalid syntax in function name"),
        ("_load_scenario", {"scenario": {}}, "Error during execution: name '_load_scenario'"),
        ("exit", {}, "Error during execution: Function call exit is not allowed."),
        ("add", {"a": "__import__('os')", "b": 1}, '{"error": "Both inputs must be numbers"}'),
        ("add", {"from": 1}, "Error during execution: invalid syntax"),
        ("add", {"a": float("nan"), "b": 1}, "Error during execution: name 'nan' is not defined"),
        ("add", {"a": 1}, "Error during execution: MathAPI.add() missing 1 required"),
    ],
)
def test_hostile_calls_are_error_results(name, arguments, answer):
    apis = BfclApis(["MathAPI"], {}, long_context=False)
    assert apis.execute(name, arguments).startswith(answer)


def test_the_result_names_the_simulated_api_version():
    result = multi_turn_result(
        _math_entry(), [["add(a=1, b=2)"]], [[[{"add": '{"a": 1, "b": 2}'}]]], mode="fc"
    )
    assert result.score == 1.0
    assert result.diagnosis.details["bfcl_eval_version"] == api_version() == "2026.3.23"


def test_score_format_bfcl_reads_and_replays_multi_turn(shared_data, tmp_path):
    from tooleval.benchmarks.base import unreadable_reason
    from tooleval.benchmarks.bfcl.folder import load_bfcl
    from tooleval.benchmarks.bfcl.metric import bfcl_ast

    root = shared_data / "bfcl"
    results = root / "results" / "glyphh-ada-1.1"
    samples = load_bfcl(results, root, categories=["multi_turn_base"])["multi_turn_base"]
    scores = [bfcl_ast(s) for s in samples]
    assert sum(r.passed for r in scores) == 121 and len(scores) == 200
    assert scores[0].diagnosis.details["bfcl_eval_version"] == "2026.3.23"
    # data of another version: the rows say so instead of being scored on the wrong APIs
    data = tmp_path / "data"
    (data / "possible_answer").mkdir(parents=True)
    name = "BFCL_v4_multi_turn_base.json"
    rows = _jsonl(root / "data" / name)
    rows[0]["initial_config"] = {"GorillaFileSystem": {"root": {}}}
    (data / name).write_text("\n".join(json.dumps(r) for r in rows))
    (data / "possible_answer" / name).write_text((root / "possible_answer" / name).read_text())
    changed = load_bfcl(results, data, categories=["multi_turn_base"])["multi_turn_base"]
    first = next(s for s in changed if s.id == rows[0]["id"])
    assert "another version of the data" in unreadable_reason(first)
