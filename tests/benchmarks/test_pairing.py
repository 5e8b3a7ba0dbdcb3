"""One pairing of a predictions file with its reference file, for Seal-Tools and NESTFUL alike."""

from __future__ import annotations

import json

import pytest

from tooleval.benchmarks._files import pair_records, read_pairs
from tooleval.benchmarks.nestful.reader import load_nestful
from tooleval.benchmarks.seal_tools.reader import load_seal_tools
from tooleval.errors import FormatError


def _by_id(record):
    return record.get("id")


def test_pairs_by_id_in_reference_order_else_by_position():
    refs = [{"id": "a"}, {"id": "b"}]
    assert pair_records(refs, [{"id": "b", "p": 2}, {"id": "a", "p": 1}], ident=_by_id) == [
        ({"id": "a"}, {"id": "a", "p": 1}),
        ({"id": "b"}, {"id": "b", "p": 2}),
    ]
    # one record without an id: every pair goes by position
    assert pair_records(refs, [{"p": 1}, {"id": "a"}], ident=_by_id) == [
        ({"id": "a"}, {"p": 1}),
        ({"id": "b"}, {"id": "a"}),
    ]
    # junk records have no id either
    assert pair_records(["x"], [7], ident=_by_id) == [("x", 7)]


@pytest.mark.parametrize(
    ("predictions", "message", "field"),
    [
        ([{"id": "a"}, {"id": "a"}], "predicted twice", "predictions[1].id"),
        ([{"id": "a"}, {"id": "z"}], "not in the reference, e.g. 'z'", "predictions.id"),
        ([{"id": "a"}], "have no prediction, e.g. 'b'", "predictions.id"),
        ([{"p": 1}], "1 predictions for 2 reference records", "predictions"),
    ],
)
def test_pairing_errors_name_the_field(predictions, message, field):
    with pytest.raises(FormatError, match=message) as info:
        pair_records([{"id": "a"}, {"id": "b"}], predictions, ident=_by_id)
    assert info.value.field == field


def test_read_pairs_needs_a_file_and_names_the_path(tmp_path):
    with pytest.raises(FormatError, match="give a predictions file"):
        read_pairs(None, None, ident=_by_id, path=None)
    ref, pred = tmp_path / "ref.jsonl", tmp_path / "pred.jsonl"
    ref.write_text('{"id": "a"}\n')
    pred.write_text('{"id": "b"}\n')
    with pytest.raises(FormatError) as info:
        read_pairs(pred, ref, ident=_by_id, path=pred)
    assert str(pred) in str(info.value)
    assert read_pairs(None, ref, ident=_by_id, path=ref) == [({"id": "a"}, None)]


def test_both_benchmarks_refuse_a_stray_prediction_alike(tmp_path):
    seal_ref, seal_pred = tmp_path / "s_ref.jsonl", tmp_path / "s_pred.jsonl"
    seal_ref.write_text(json.dumps({"id": "x-easy-0", "query": "q", "calling": []}) + "\n")
    seal_pred.write_text(json.dumps({"id": "other", "predict": [[]]}) + "\n")
    nest_ref, nest_pred = tmp_path / "n_ref.jsonl", tmp_path / "n_pred.jsonl"
    nest_ref.write_text(json.dumps({"sample_id": "n1", "input": "q", "output": []}) + "\n")
    nest_pred.write_text(json.dumps({"sample_id": "other", "generated_text": "[]"}) + "\n")
    messages = []
    for load, pred, ref in (
        (load_seal_tools, seal_pred, seal_ref),
        (load_nestful, nest_pred, nest_ref),
    ):
        with pytest.raises(FormatError, match="not in the reference") as info:
            load(pred, reference=ref)
        messages.append((info.value.field, str(info.value).split(": ", 1)[-1]))
    assert messages[0][0] == messages[1][0] == "predictions.id"
