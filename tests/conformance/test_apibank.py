"""API-Bank graded files: importer, and agreement with API-Bank's own verdicts.

The rows are built from API-Bank's level-1 dialogues (AlibabaResearch/DAMO-ConvAI,
api-bank/lv1-lv2-samples): the gold item as the dialogue file holds it, a model
output in API-Bank's text form, and the verdict API-Bank's evaluator
(evaluator_by_json.py, tool_manager.api_call, check_api_call_correctness) gives:
the parser reads every value as text, the API layer converts it by its declared
type (so ``room_count=1`` and ``'1'`` both become ``1``), and the recorded input
must equal the gold one exactly (case kept).
"""

from __future__ import annotations

import json

import pytest

from tooleval.benchmarks.api_bank.reader import (
    load_apibank,
    parse_apibank_call,
    sample_from_apibank_row,
)
from tooleval.benchmarks.detect import detect_benchmark
from tooleval.benchmarks.score_format import default_metric
from tooleval.errors import DatasetError, FormatError
from tooleval.metrics.registry import score_sample

HOTEL = {
    "role": "API",
    "api_name": "BookHotel",
    "param_dict": {
        "hotel_name": "Hilton San Francisco",
        "check_in_time": "2023-08-10",
        "check_out_time": "2023-08-15",
        "room_count": "1",
        "adult_count": "2",
        "child_count": "1",
    },
    "result": {
        "api_name": "BookHotel",
        "input": {
            "hotel_name": "Hilton San Francisco",
            "check_in_time": "2023-08-10",
            "check_out_time": "2023-08-15",
            "room_count": 1,
            "adult_count": 2,
            "child_count": 1,
        },
        "output": "11",
        "exception": None,
    },
}
ALARM = {
    "role": "API",
    "api_name": "AddAlarm",
    "param_dict": {"token": "z9x8c7v6b5n4m3q2w1", "time": "2021-10-14 08:00:00"},
    "result": {
        "api_name": "AddAlarm",
        "input": {"token": "z9x8c7v6b5n4m3q2w1", "time": "2021-10-14 08:00:00"},
        "output": "success",
        "exception": None,
    },
}
TOKEN = {
    "role": "API",
    "api_name": "GetUserToken",
    "param_dict": {"username": "foo", "password": "bar"},
    "result": {
        "api_name": "GetUserToken",
        "input": {"username": "foo", "password": "bar"},
        "output": {"token": "z9x8c7v6b5n4m3q2w1"},
        "exception": None,
    },
}
CALC = {
    "role": "API",
    "api_name": "Calculator",
    "param_dict": {"formula": "(5+6)*3"},
    "result": {
        "api_name": "Calculator",
        "input": {"formula": "(5+6)*3"},
        "output": 33.0,
        "exception": None,
    },
}

_HOTEL_CALL = (
    "hotel_name='Hilton San Francisco', check_in_time='2023-08-10', "
    "check_out_time='2023-08-15', room_count={r}, adult_count=2, child_count=1"
)

# (gold item, model output, API-Bank's verdict, API-Bank's error_type when wrong)
GRADED = [
    (HOTEL, f"API-Request: [BookHotel({_HOTEL_CALL.format(r=1)})]", True, None),
    (HOTEL, f"API-Request: [BookHotel({_HOTEL_CALL.format(r=repr('1'))})]", True, None),
    (
        HOTEL,
        "API-Request: [BookHotel(hotel_name='hilton san francisco', check_in_time='2023-08-10', "
        "check_out_time='2023-08-15', room_count=1, adult_count=2, child_count=1)]",
        False,
        "INPUT_MISMATCH",
    ),
    (HOTEL, f"API-Request: [BookHotel({_HOTEL_CALL.format(r=2)})]", False, "INPUT_MISMATCH"),
    (
        ALARM,
        "API-Request: [AddAlarm(token='z9x8c7v6b5n4m3q2w1', time='2021-10-14 08:00:00')]",
        True,
        None,
    ),
    (
        ALARM,
        'Sure. API-Request: [AddAlarm(token="z9x8c7v6b5n4m3q2w1", time="2021-10-14 08:00:00")]',
        True,
        None,
    ),
    (
        ALARM,
        "API-Request: [AddAlarm(token='z9x8c7v6b5n4m3q2w1', time='2021-10-14 09:00:00')]",
        False,
        "INPUT_MISMATCH",
    ),
    (
        ALARM,
        "API-Request: [AddReminder(token='z9x8c7v6b5n4m3q2w1', time='2021-10-14 08:00:00')]",
        False,
        "API_NAME_MISMATCH",
    ),
    (ALARM, "Okay, I'm setting the alarm.", False, "NO_API_CALL"),
    (TOKEN, "API-Request: [GetUserToken(username='foo', password='bar')]", True, None),
    (
        TOKEN,
        "API-Request: [GetUserToken(username='foo', password='bar', email='foo@x.com')]",
        False,
        "INVALID_INPUT_PARAMETER",
    ),
    (TOKEN, "API-Request: [GetUserToken(username='foo')]", False, "MISS_INPUT_ARGUMENT"),
    (TOKEN, "API-Request: [GetUserToken(username='Foo', password='bar')]", False, "INPUT_MISMATCH"),
    (CALC, "API-Request: [Calculator(formula='(5+6)*3')]", True, None),
]


def _rows():
    for i, (gold, pred, correct, error) in enumerate(GRADED):
        row = {"file": f"{gold['api_name']}-level-1-1.jsonl", "id": i, "ground_truth": gold}
        row.update({"pred": pred, "correct": correct})
        if error is not None:
            row["error_type"] = error
        yield row


def test_parser_reads_values_as_text_like_api_bank():
    call = parse_apibank_call("API-Request: [BookHotel(name='Hilton', rooms=2, tags=['a', 'b'])]")
    assert call.name == "BookHotel"
    assert call.args == {"name": "Hilton", "rooms": "2", "tags": "['a', 'b']"}
    # the shortest quoted text wins, as in API-Bank's pattern
    assert parse_apibank_call("[Note(text='it's here')]").args == {"text": "it"}
    assert parse_apibank_call("plain text") is None
    assert parse_apibank_call("[NoArgs()]").args == {}


def test_agreement_with_api_bank_verdicts(tmp_path):
    path = tmp_path / "graded.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in _rows()) + "\n")
    assert detect_benchmark(path) == "api-bank"
    metric, options = default_metric("api-bank")
    samples = load_apibank(path)
    assert len(samples) == len(GRADED)
    calls = names = 0
    for sample in samples:
        labels = sample.metadata["api_bank"]
        result = score_sample(metric, sample, **options)
        calls += result.passed == labels["correct"]
        made = sample.actual_calls()
        same_name = bool(made) and made[0].name == sample.expected_tools.calls[0].name
        names += same_name == labels["name_correct"]
    assert names == len(GRADED)
    assert calls / len(GRADED) >= 0.99


def test_exact_matcher_alone_misses_numbers_written_as_text():
    sample = sample_from_apibank_row(next(_rows()))
    assert score_sample("tool_correctness", sample, exact_match=True).passed is False
    assert score_sample("tool_correctness", sample, exact_match=True, args="numeric_text").passed


MEETING = {
    "role": "API",
    "api_name": "AddMeeting",
    "param_dict": {
        "token": "t",
        "meeting_topic": "Sync",
        "start_time": "2023-03-20 14:00:00",
        "end_time": "2023-03-20 15:00:00",
        "location": "Room 1",
        "attendees": "['John', 'Jane']",
    },
    "result": {
        "api_name": "AddMeeting",
        "input": {
            "token": "t",
            "meeting_topic": "Sync",
            "start_time": "2023-03-20 14:00:00",
            "end_time": "2023-03-20 15:00:00",
            "location": "Room 1",
            "attendees": ["John", "Jane"],
        },
        "output": "success",
        "exception": None,
    },
}
SWITCH = {
    "role": "API",
    "api_name": "TimedSwitch",
    "param_dict": {"name": "light", "time": "2023-03-20 08:00:00", "on": "True"},
    "result": {
        "api_name": "TimedSwitch",
        "input": {"name": "light", "time": "2023-03-20 08:00:00", "on": True},
        "output": True,
        "exception": None,
    },
}


def test_list_text_fails_in_both():
    # API-Bank passes list(str) text through unconverted, so the recorded input is text
    # while the gold input is a list: wrong there, wrong here.
    pred = (
        "API-Request: [AddMeeting(token='t', meeting_topic='Sync', start_time='2023-03-20 "
        "14:00:00', end_time='2023-03-20 15:00:00', location='Room 1', attendees=['John', 'Jane'])]"
    )
    metric, options = default_metric("api-bank")
    sample = sample_from_apibank_row({"ground_truth": MEETING, "pred": pred})
    assert sample.actual_calls()[0].args["attendees"] == "['John', 'Jane']"
    assert score_sample(metric, sample, **options).passed is False


def test_known_difference_bool_text():
    # API-Bank converts on='True' by the declared bool type; numeric_text leaves it text.
    pred = "API-Request: [TimedSwitch(name='light', time='2023-03-20 08:00:00', on='True')]"
    metric, options = default_metric("api-bank")
    sample = sample_from_apibank_row({"ground_truth": SWITCH, "pred": pred})
    assert score_sample(metric, sample, **options).passed is False


def test_known_difference_calculator_spaces():
    # API-Bank's Calculator drops spaces from both formulas before comparing;
    # tooleval's built-in matchers keep them (documented in docs/conformance.md).
    row = {"ground_truth": CALC, "pred": "API-Request: [Calculator(formula='(5 + 6) * 3')]"}
    metric, options = default_metric("api-bank")
    assert score_sample(metric, sample_from_apibank_row(row), **options).passed is False


def test_json_array_and_object_predictions(tmp_path):
    rows = [
        {
            "gold": {"api_name": "BookHotel", "param_dict": HOTEL["param_dict"]},
            "prediction": {"api_name": "BookHotel", "param_dict": HOTEL["result"]["input"]},
        },
        {
            "expected_output": "API-Request: [GetUserToken(username='foo', password='bar')]",
            "pred": None,
        },
    ]
    path = tmp_path / "graded.json"
    path.write_text(json.dumps(rows))
    samples = load_apibank(path)
    metric, options = default_metric("api-bank")
    assert score_sample(metric, samples[0], **options).passed is True
    assert samples[1].actual_calls() == []
    assert score_sample(metric, samples[1], **options).passed is False
    assert samples[1].metadata["api_bank"]["correct"] is None


@pytest.mark.parametrize(
    ("row", "field"),
    [
        ({"pred": "x"}, "row"),
        ({"gold": 3, "pred": "x"}, "row.gold"),
        ({"expected_output": "no call", "pred": "x"}, "row.expected_output"),
        ({"gold": {"param_dict": {}}, "pred": "x"}, "row.gold"),
        ({"gold": {"api_name": "A", "param_dict": [1]}, "pred": "x"}, "row.gold.param_dict"),
        ({"gold": {"api_name": "A"}}, "row"),
        ({"gold": {"api_name": "A"}, "pred": 5}, "row.pred"),
        ({"gold": {"api_name": "A"}, "pred": "x", "correct": "yes"}, "row.correct"),
        ({"gold": {"api_name": "A"}, "pred": "x", "error_type": "OOPS"}, "row.error_type"),
    ],
)
def test_bad_rows_name_the_field(row, field):
    with pytest.raises(FormatError) as info:
        sample_from_apibank_row(row)
    assert info.value.field == field


def test_unreadable_files(tmp_path):
    with pytest.raises(DatasetError, match="cannot read"):
        load_apibank(tmp_path / "absent.jsonl")
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"pred": "x", "gold": {"api_name": "A"}}\n{oops\n')
    with pytest.raises(DatasetError, match="line 2"):
        load_apibank(broken)
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(DatasetError, match="UTF-8"):
        load_apibank(binary)


def _dialogue_folder(tmp_path):
    folder = tmp_path / "level-1-given-desc"
    folder.mkdir()
    history = [
        {"role": "User", "text": "Can you help me set an alarm for 8 am tomorrow?"},
        {"role": "AI", "text": "Sure, can you please provide your username and password?"},
        {"role": "User", "text": "Sure, my username is foo and password is bar."},
        TOKEN,
        {"role": "AI", "text": "Okay, I got your token. What time?"},
        {"role": "User", "text": "8 am tomorrow. Today is 2021-10-13."},
        ALARM,
        {"role": "AI", "text": "Alarm has been set for 8 am tomorrow."},
    ]
    (folder / "AddAlarm-level-1-1.jsonl").write_text("\n".join(json.dumps(h) for h in history))
    return folder


def test_prediction_rows_take_gold_from_the_dialogue_files(tmp_path, capsys):
    from tooleval.cli.main import main

    folder = _dialogue_folder(tmp_path)
    rows = [
        {
            "file": "AddAlarm-level-1-1.jsonl",
            "id": 0,
            "pred": "API-Request: [GetUserToken(username='foo', password='bar')]",
        },
        {
            "file": "AddAlarm-level-1-1.jsonl",
            "id": 2,
            "pred": "API-Request: [AddAlarm(token='z9x8c7v6b5n4m3q2w1', time='2021-10-14 09:00:00')]",
        },
    ]
    path = tmp_path / "preds.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    samples = load_apibank(path, dialogues=folder)
    assert [s.expected_tools.calls[0].name for s in samples] == ["GetUserToken", "AddAlarm"]
    assert detect_benchmark(path) == "api-bank"
    code = main(["score", str(path), "--data", str(folder)])
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 0 and [r["passed"] for r in out] == [True, False]
    odd = tmp_path / "odd.jsonl"
    odd.write_text(json.dumps({**rows[0], "id": 1}))
    with pytest.raises(FormatError, match="reply, not an API call"):
        load_apibank(odd, dialogues=folder)
    odd.write_text(json.dumps({**rows[0], "id": 9}))
    with pytest.raises(FormatError, match="id 9 is not one"):
        load_apibank(odd, dialogues=folder)
    with pytest.raises(FormatError, match="dialogue folder"):
        load_apibank(path)
    with pytest.raises(DatasetError, match="not found"):
        load_apibank(path, dialogues=tmp_path / "absent")
