"""Seal-Tools: every reference record imports, and the ``seal_tools`` profile agrees
with an independent re-implementation of the benchmark's own metric on every
record under every perturbation.

The oracle below is written from ``calculate_score_ToolLearning``
(fairyshine/Seal-Tools, LLM_Evaluation/src/llm_tools/evaluation/calculate.py): it
reads the official prediction rows (``predict[0]``, ``gold_data.conversations[1]``
evaluated as a Python literal) and sums the counts exactly as that function does.
It shares no code with tooleval.
"""

from __future__ import annotations

import ast
import copy
import json
from pathlib import Path

import pytest

from tooleval.benchmarks.detect import detect_benchmark
from tooleval.benchmarks.score_format import default_metric
from tooleval.benchmarks.seal_tools.metric import seal_tools, seal_tools_summary
from tooleval.benchmarks.seal_tools.reader import (
    load_seal_tools,
    parse_seal_tools_output,
    sample_from_seal_tools,
)
from tooleval.errors import DatasetError, FormatError
from tooleval.metrics.registry import score_sample

FILES = ("test_in_domain.jsonl", "test_out_domain.jsonl")
# Records with nested calls (a parameter names a call's response slot), as the
# data's README counts them. One out-of-domain record names a *later* call's slot
# (test_out_domain-difficult-241: call 0 uses API_call_2, which call 1 returns):
# no ordering constraint can come from that, so it has no `before` pair.
NESTED_RECORDS = {"test_in_domain.jsonl": 30, "test_out_domain.jsonl": 27}
FORWARD_ONLY = {"test_in_domain.jsonl": 0, "test_out_domain.jsonl": 1}


def _oracle(rows: list[dict]) -> dict:
    """calculate_score_ToolLearning, restated from the benchmark's script."""
    out: dict = {}
    fmt = c_api = p_api = g_api = c_par = p_par = g_par = 0
    for data in rows:
        gold = json.loads(
            json.dumps(ast.literal_eval(data["gold_data"]["conversations"][1]["value"]))
        )
        g_api += len(gold)
        for g in gold:
            g_par += len(g["parameters"])
        if data["predict"][0] != -1:
            fmt += 1
            for pred in data["predict"][0]:
                if "api" in pred:
                    p_api += 1
                    if "parameters" in pred and type(pred["parameters"]) == dict:  # noqa: E721
                        p_par += len(pred["parameters"])
                    idx = -1
                    for k in range(len(gold)):
                        if gold[k]["api"] == pred["api"]:
                            idx = k
                            break
                    if idx != -1:
                        c_api += 1
                        if "parameters" in pred and type(pred["parameters"]) == dict:  # noqa: E721
                            for name in pred["parameters"]:
                                if name in gold[idx]["parameters"] and str(
                                    pred["parameters"][name]
                                ) == str(gold[idx]["parameters"][name]):
                                    c_par += 1
    if fmt > 0:
        out["AMOUNT"] = 1.0 * fmt / len(rows)
    if c_api * p_api * g_api > 0:
        out["P_api"] = 1.0 * c_api / p_api
        out["R_api"] = 1.0 * c_api / g_api
        out["F1_api"] = 2 * out["P_api"] * out["R_api"] / (out["P_api"] + out["R_api"])
    if c_par * p_par * g_par > 0:
        out["P_param"] = 1.0 * c_par / p_par
        out["R_param"] = 1.0 * c_par / g_par
        out["F1_param"] = 2 * out["P_param"] * out["R_param"] / (out["P_param"] + out["R_param"])
    out["_counts"] = (c_api, p_api, g_api, c_par, p_par, g_par)
    return out


# ------------------------------------------------------------------ perturbations


def _depends(calling: list[dict], i: int, j: int) -> bool:
    """Does call j use a response slot of call i?"""
    slots = set(calling[i].get("responses") or [])
    text = json.dumps(calling[j].get("parameters", {}))
    return any(json.dumps(s) in text for s in slots)


def _rename(calling):
    mapping = {s: f"out_{s.lower()}" for c in calling for s in c.get("responses") or []}

    def swap(v):
        if isinstance(v, str):
            return mapping.get(v, v)
        if isinstance(v, list):
            return [swap(x) for x in v]
        if isinstance(v, dict):
            return {k: swap(x) for k, x in v.items()}
        return v

    return [
        {
            **c,
            "parameters": swap(c["parameters"]),
            "responses": [mapping[s] for s in c["responses"]],
        }
        for c in calling
    ]


def _swap(calling, dependent: bool):
    """Swap the first dependent pair, or the first adjacent independent pair."""
    for i in range(len(calling)):
        for j in range(i + 1, len(calling) if dependent else min(i + 2, len(calling))):
            if _depends(calling, i, j) == dependent:
                out = list(calling)
                out[i], out[j] = out[j], out[i]
                return out
    return calling


def _wrong_arg(calling):
    out = copy.deepcopy(calling)
    for c in out:
        if c["parameters"]:
            key = next(iter(c["parameters"]))
            c["parameters"][key] = "WRONG"
            break
    return out


def _stringify(calling):
    def conv(v):
        return str(v) if isinstance(v, int | float) and not isinstance(v, bool) else v

    return [{**c, "parameters": {k: conv(v) for k, v in c["parameters"].items()}} for c in calling]


PERTURBATIONS = {
    "identity": lambda c: c,
    "rename_slots": _rename,
    "drop_last": lambda c: c[:-1],
    "swap_independent": lambda c: _swap(c, False),
    "swap_dependent": lambda c: _swap(c, True),
    "wrong_argument": _wrong_arg,
    "extra_call": lambda c: [*c, {"api": "notAGoldTool", "parameters": {"x": 1}, "responses": []}],
    "stringified_numbers": _stringify,
    "duplicate_first": lambda c: [*c, copy.deepcopy(c[0])],
    "entry_without_api": lambda c: [*c, {"parameters": {"x": 1}}],
    "parameters_not_object": lambda c: [{**c[0], "parameters": "oops"}, *c[1:]],
    "empty": lambda c: [],
}


def _official_rows(refs, perturb, *, fail_every: int | None = None):
    rows = []
    for n, ref in enumerate(refs):
        predict = perturb(copy.deepcopy(ref["calling"]))
        if fail_every and n % fail_every == 0:
            predict = -1
        rows.append(
            {
                "id": ref["id"],
                "predict": [predict],
                "gold_data": {
                    "id": ref["id"],
                    "conversations": [
                        {"from": "human", "value": ref["query"]},
                        {"from": "gpt", "value": repr(ref["calling"])},
                    ],
                },
            }
        )
    return rows


def _write(path: Path, rows) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def references(shared_data):
    out = {}
    for name in FILES:
        lines = (shared_data / "seal_tools" / name).read_text(encoding="utf-8").splitlines()
        out[name] = [json.loads(line) for line in lines if line.strip()]
    return out


def _ours(rows):
    return [seal_tools(sample_from_seal_tools(None, row, index=i)) for i, row in enumerate(rows)]


@pytest.mark.parametrize("name", FILES)
def test_every_reference_record_imports(shared_data, references, name):
    samples = load_seal_tools(None, reference=shared_data / "seal_tools" / name)
    refs = references[name]
    assert (
        len(samples)
        == len(refs)
        == {"test_in_domain.jsonl": 700, "test_out_domain.jsonl": 654}[name]
    )
    assert sum(len(s.expected_tools) for s in samples) == sum(len(r["calling"]) for r in refs)
    assert [s.id for s in samples] == [r["id"] for r in refs]
    assert all(s.tools_called is None for s in samples)
    mentions = sum("API_call" in json.dumps([c["parameters"] for c in r["calling"]]) for r in refs)
    assert mentions == NESTED_RECORDS[name]
    with_order = sum(bool(s.expected_tools.before) for s in samples)
    assert with_order == NESTED_RECORDS[name] - FORWARD_ONLY[name]
    for sample, ref in zip(samples, refs, strict=True):
        assert sample.category == ("easy" if "-easy-" in ref["id"] else "difficult")
        for i, j in sample.expected_tools.before:
            assert _depends(ref["calling"], i, j)


@pytest.mark.parametrize("perturbation", sorted(PERTURBATIONS))
@pytest.mark.parametrize("name", FILES)
def test_agrees_with_the_official_metric(references, name, perturbation):
    rows = _official_rows(references[name], PERTURBATIONS[perturbation])
    expected = _oracle(rows)
    results = _ours(rows)
    summary = seal_tools_summary(results)
    counts = expected.pop("_counts")
    assert summary == expected
    totals = [
        sum(r.diagnosis.details["counts"][k] for r in results)
        for k in (
            "correct_api",
            "predict_api",
            "gold_api",
            "correct_param",
            "predict_param",
            "gold_param",
        )
    ]
    assert tuple(totals) == counts
    # and row by row
    for row, result in zip(rows, results, strict=True):
        one = _oracle([row])
        assert tuple(result.diagnosis.details["counts"].values()) == one["_counts"], row["id"]
        assert result.passed == (
            one["_counts"][0] == one["_counts"][1] == one["_counts"][2]
            and one["_counts"][3] == one["_counts"][4] == one["_counts"][5]
        )


def test_format_failures_count_gold_only(references):
    rows = _official_rows(references["test_in_domain.jsonl"], lambda c: c, fail_every=7)
    expected = _oracle(rows)
    expected.pop("_counts")
    results = _ours(rows)
    assert seal_tools_summary(results) == expected
    assert expected["AMOUNT"] == pytest.approx(600 / 700)
    failed = results[0]
    assert failed.score == 0.0 and "could not be parsed" in failed.reason


def test_reference_against_itself(references):
    """Perfect, except where the official first-match rule compares a repeated API
    with its first gold call (the benchmark's own self-score is below 1 there)."""
    for _name, refs in references.items():
        rows = _official_rows(refs, lambda c: c)
        for row, result, ref in zip(rows, _ours(rows), refs, strict=True):
            names = [c["api"] for c in ref["calling"]]
            repeated_differently = any(
                c["parameters"] != ref["calling"][names.index(c["api"])]["parameters"]
                for c in ref["calling"]
            )
            assert result.passed is not repeated_differently, ref["id"]
            generic = score_sample("tool_correctness", sample_from_seal_tools(ref, row))
            assert generic.score == 1.0


def test_dependencies_order_calls_for_generic_metrics(references):
    refs = [
        r
        for r in references["test_in_domain.jsonl"]
        if any(
            _depends(r["calling"], i, j)
            for i in range(len(r["calling"]))
            for j in range(i + 1, len(r["calling"]))
        )
    ]
    ordered = {"order": "strict", "exact_match": True}
    independent = dependent = 0
    for ref in refs:
        for perturb, want in ((lambda c: _swap(c, False), 1.0), (lambda c: _swap(c, True), 0.0)):
            calls = perturb(copy.deepcopy(ref["calling"]))
            if calls == ref["calling"]:
                continue
            sample = sample_from_seal_tools(ref, {"id": ref["id"], "predict": calls})
            assert score_sample("tool_correctness", sample, **ordered).score == want, ref["id"]
            independent += want == 1.0
            dependent += want == 0.0
    assert independent > 5 and dependent == len(refs)


def test_raw_model_text_is_read_like_the_benchmark():
    text = "Here you go:\n[{'api': 'getX', 'parameters': {'a': 1}, 'responses': ['API_call_0']}]"
    assert parse_seal_tools_output(text) == [
        {"api": "getX", "parameters": {"a": 1}, "responses": ["API_call_0"]}
    ]
    assert parse_seal_tools_output('[{"api": "getX", "parameters": {}}]') is None  # no responses
    assert parse_seal_tools_output('[{"api": "getX", "parameters": {}, "responses": [') is None
    ref = {
        "id": "t-easy-1",
        "query": "q",
        "calling": [{"api": "getX", "parameters": {"a": 1}, "responses": ["API_call_0"]}],
    }
    s = sample_from_seal_tools(ref, {"id": "t-easy-1", "predict": [text]})
    assert seal_tools(s).passed is True
    bad = seal_tools(sample_from_seal_tools(ref, {"id": "t-easy-1", "predict": ["no calls"]}))
    assert bad.score == 0.0 and bad.diagnosis.details["format_ok"] is False


def test_malformed_inputs_name_the_record_and_field(tmp_path):
    ref = tmp_path / "ref.jsonl"
    ref.write_text(
        '{"id": "a-easy-0", "query": "q", "calling": [{"api": "f", "parameters": {}}]}\n{"id": "a-easy-1", "qu'
    )
    with pytest.raises(DatasetError, match="line 2: invalid JSON"):
        load_seal_tools(None, reference=ref)
    ref.write_bytes(b"\x00\xff garbage")
    with pytest.raises(DatasetError, match="not UTF-8"):
        load_seal_tools(None, reference=ref)
    ref.write_text(
        '{"id": "x", "calling": [{"api": "f", "parameters": {"a": '
        + "[" * 300
        + "]" * 300
        + "}}]}\n"
    )
    with pytest.raises(DatasetError, match="nested deeper"):
        load_seal_tools(None, reference=ref)
    ref.write_text('{"id": "x", "calling": [{"api": "f", "parameters": []}]}\n')
    with pytest.raises(FormatError, match=r"records\[0\].calling\[0\].parameters"):
        load_seal_tools(None, reference=ref)
    ref.write_text('{"id": "x", "calling": [{"parameters": {}}]}\n')
    with pytest.raises(FormatError, match=r"calling\[0\].api"):
        load_seal_tools(None, reference=ref)
    ref.write_text('{"id": "x", "query": "q", "calling": [{"api": "f", "parameters": {}}]}\n')
    pred = _write(tmp_path / "pred.jsonl", [{"id": "y", "predict": [[]]}])
    with pytest.raises(FormatError, match="not in the reference"):
        load_seal_tools(pred, reference=ref)
    _write(pred, [{"id": "x", "predict": [[1]]}])
    with pytest.raises(FormatError, match=r"predictions\[0\]\[0\]"):
        load_seal_tools(pred, reference=ref)
    _write(pred, [{"id": "x", "predict": [[]], "gold_data": {}}])
    with pytest.raises(FormatError, match="gold_data"):
        load_seal_tools(pred)
    with pytest.raises(FormatError, match="reference record, not a prediction"):
        load_seal_tools(ref, reference=ref)
    big = [
        {
            "id": f"b-difficult-{i}",
            "query": "q",
            "calling": [{"api": "f", "parameters": {"k": "v" * 1000}, "responses": ["API_call_0"]}]
            * 20,
        }
        for i in range(300)
    ]
    _write(ref, big)
    assert len(load_seal_tools(None, reference=ref)) == 300


def test_cli_scores_and_detects(tmp_path, references, capsys):
    from tooleval.cli.main import main
    from tooleval.model import Result

    refs = references["test_out_domain.jsonl"][:40]
    ref = _write(tmp_path / "ref.jsonl", refs)
    rows = _official_rows(refs, _wrong_arg)
    pred = _write(tmp_path / "pred_test.jsonl", rows)
    assert detect_benchmark(pred) == "seal-tools"
    assert detect_benchmark(ref) == "seal-tools"
    assert default_metric("seal-tools") == ("seal_tools", {})
    assert main(["score", str(pred), "--data", str(ref)]) == 0
    printed = capsys.readouterr().out
    out = [json.loads(line) for line in printed.splitlines()]
    assert [o["id"] for o in out] == [r["id"] for r in refs]
    assert {o["metric"] for o in out} == {"seal_tools"}
    expected = _oracle(rows)
    expected.pop("_counts")
    assert seal_tools_summary(Result.from_dict(o) for o in out) == expected
    # the official file alone carries the gold
    assert main(["score", str(pred), "--format", "seal-tools"]) == 0
    assert capsys.readouterr().out == printed
    assert main(["score", str(pred), "--data", str(ref), "--table", "-o", str(tmp_path / "o")]) == 0
    table = capsys.readouterr().out
    assert "corpus-level" in table and f"{expected['F1_param']:.4f}" in table
    code = main(["score", str(ref), "--format", "seal-tools", "--data", str(ref)])
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "reference record" in err


def test_gold_data_wins_over_the_reference(references):
    """calculate_score_ToolLearning reads gold_data; the reference supplies the query."""
    refs = references["test_in_domain.jsonl"]
    row = _official_rows([refs[1]], lambda c: c)[0]
    row["id"] = refs[0]["id"]
    sample = sample_from_seal_tools(refs[0], row)
    assert seal_tools(sample).passed and sample.input == refs[0]["query"]
