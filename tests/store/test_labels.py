"""Human labels and judge calibrations in the store (real SQLite file, real PostgreSQL)."""

from __future__ import annotations

import pytest

from tooleval.errors import InputError, StoreError
from tooleval.model import Result, Sample
from tooleval.store import (
    Label,
    MetricSpec,
    RowRecord,
    judge_key,
    labels_text,
    parse_labels,
    read_label_file,
    resolve_labels,
)

METRICS = [MetricSpec("task_success"), MetricSpec("tool_correctness")]


def _run(store, name, rows=4, *, repeated=False):
    run_id = store.create_run(name, dataset={}, connector={}, metrics=METRICS)
    for index in range(rows):
        row_id = f"row-{index // 2 if repeated else index}"
        store.add_row(
            run_id,
            RowRecord(
                run_id,
                index,
                row_id,
                Sample(input=f"q{index}", id=row_id),
                results=(
                    Result.scored("task_success", float(index % 2), reason="judged"),
                    Result.scored("tool_correctness", 1.0, reason="ok"),
                ),
            ),
        )
    return run_id


def test_labels_are_stored_replaced_and_never_change_a_result(store, run_name):
    run_id = _run(store, run_name)
    before = [row.results for row in store.iter_rows(run_id)]
    assert (
        store.labels.set_labels(
            run_id,
            [
                Label(0, "task_success", True, note="refund done", labeller="ana"),
                Label(1, "task_success", True),
                Label(1, "tool_correctness", False),
            ],
        )
        == 3
    )
    got = store.labels.get_labels(run_id)
    assert [(g.row_index, g.metric, g.passed, g.row_id) for g in got] == [
        (0, "task_success", True, "row-0"),
        (1, "task_success", True, "row-1"),
        (1, "tool_correctness", False, "row-1"),
    ]
    assert got[0].note == "refund done" and got[0].labeller == "ana" and got[0].labelled_at
    # The same row and metric again replaces the label.
    store.labels.set_labels(run_id, [Label(0, "task_success", False, note="no: wrong order")])
    again = store.labels.get_labels(run_id, metric="task_success")
    assert [(g.row_index, g.passed, g.note) for g in again] == [
        (0, False, "no: wrong order"),
        (1, True, None),
    ]
    assert [row.results for row in store.iter_rows(run_id)] == before
    assert store.get_run(run_id).summaries["task_success"].passed == 2
    assert store.labels.delete_labels(run_id, metric="tool_correctness") == 1
    assert len(store.labels.get_labels(run_id)) == 2


def test_a_label_for_an_unknown_row_writes_nothing(store, run_name):
    run_id = _run(store, run_name)
    with pytest.raises(StoreError, match="has no row 9") as err:
        store.labels.set_labels(
            run_id, [Label(0, "task_success", True), Label(9, "task_success", True)]
        )
    assert err.value.row == 9
    assert store.labels.get_labels(run_id) == []
    with pytest.raises(StoreError, match="two labels for task_success"):
        store.labels.set_labels(
            run_id, [Label(0, "task_success", True), Label(0, "task_success", False)]
        )
    with pytest.raises(StoreError, match="no run"):
        store.labels.get_labels("no-such-run")


def test_deleting_the_run_deletes_its_labels_but_keeps_calibrations(store, run_name):
    run_id = _run(store, run_name)
    store.labels.set_labels(run_id, [Label(0, "task_success", True)])
    identity = {"model": "m", "metric": "task_success", "prompt_version": "abc", "options": {}}
    saved = store.labels.save_calibration(identity, {"n": 1}, source=f"run {run_id}")
    store.delete_run(run_id)
    found = store.labels.calibrations(judge_key=judge_key(identity))
    assert [c.id for c in found] == [saved.id]
    assert found[0].identity == identity and found[0].report == {"n": 1}
    assert store.labels.calibrations(metric="task_success", model="other") == []
    with pytest.raises(StoreError, match="needs model"):
        store.labels.save_calibration({"metric": "x"}, {}, source="s")


def test_a_label_file_round_trips_through_csv_and_jsonl(store, run_name, tmp_path):
    run_id = _run(store, run_name)
    lines = parse_labels(
        'row_id,label,note\nrow-0,pass,"fine, really"\nrow-3,FAIL,\n',
        "l.csv",
        metric="task_success",
    )
    labels = resolve_labels(lines, store.labels.row_indexes_by_id(run_id), ["task_success"])
    store.labels.set_labels(run_id, labels)
    stored = store.labels.get_labels(run_id)
    for fmt in ("csv", "jsonl"):
        path = tmp_path / f"labels.{fmt}"
        path.write_text(labels_text(stored, fmt=fmt), encoding="utf-8")
        back = resolve_labels(
            read_label_file(path), store.labels.row_indexes_by_id(run_id), ["task_success"]
        )
        assert [(b.row_index, b.metric, b.passed, b.note) for b in back] == [
            (0, "task_success", True, "fine, really"),
            (3, "task_success", False, None),
        ]


@pytest.mark.parametrize(
    ("text", "name", "message"),
    [
        (
            "row_id,label\nrow-0,maybe\n",
            "l.csv",
            "field label, line 2: expected pass or fail, got 'maybe'",
        ),
        (
            "row_id,verdict\nrow-0,pass\n",
            "l.csv",
            "field verdict, line 2: unknown column 'verdict'",
        ),
        ("row_id,label\nrow-0\n", "l.csv", "line 2: expected 2 cells"),
        ("label\npass\n", "l.csv", "field row_id, line 2: expected row_id or row_index"),
        ("row_index,label\n-1,pass\n", "l.csv", "field row_index, line 2: expected a row index"),
        (
            '{"row_id": "row-0", "label": "pass"}\n[1]\n',
            "l.jsonl",
            "line 2: expected a JSON object",
        ),
        (
            '{"row_id": "row-0", "label": "pass"}\n{"row_id": \n',
            "l.jsonl",
            "line 2: not a JSON object",
        ),
        (
            '{"row_id": {"a": 1}, "label": "pass"}\n',
            "l.jsonl",
            "field row_id, line 1: expected text",
        ),
        ('{"row_id": "row-0"}\n', "l.jsonl", "field label, line 1: expected pass or fail"),
        ("row_id,label\n", "l.csv", "holds no labels"),
        ("", "l.jsonl", "holds no labels"),
        ("row_id,label\x00\n", "l.csv", "NUL bytes"),
        ("[" * 100_000 + "\n", "l.jsonl", "line 1: not a JSON object"),
    ],
)
def test_a_bad_label_file_names_the_line_and_column(text, name, message):
    with pytest.raises(InputError) as err:
        parse_labels(text, name, metric="task_success")
    assert message in str(err.value)


def test_labels_must_name_rows_and_metrics_of_the_run(store, run_name):
    run_id = _run(store, run_name, repeated=True)  # rows 0,1 are row-0; 2,3 are row-1
    rows = store.labels.row_indexes_by_id(run_id)
    metrics = [m.name for m in METRICS]

    def resolve(text):
        return resolve_labels(parse_labels(text, "l.jsonl"), rows, metrics)

    with pytest.raises(InputError, match="line 1: the run did not score 'goal_accuracy'"):
        resolve('{"row_id": "row-0", "metric": "goal_accuracy", "label": "pass"}')
    with pytest.raises(InputError, match="stored 2 times .repeats.; give row_index"):
        resolve('{"row_id": "row-0", "metric": "task_success", "label": "pass"}')
    with pytest.raises(InputError, match="the run has no row 'row-9'"):
        resolve('{"row_id": "row-9", "metric": "task_success", "label": "pass"}')
    with pytest.raises(InputError, match="row 2 is not row id 'row-0'"):
        resolve('{"row_id": "row-0", "row_index": 2, "metric": "task_success", "label": "pass"}')
    with pytest.raises(
        InputError, match="line 2: row 1 already has a task_success label on line 1"
    ):
        resolve(
            '{"row_index": 1, "metric": "task_success", "label": "pass"}\n'
            '{"row_index": 1, "metric": "task_success", "label": "fail"}'
        )
    assert [
        lab.row_index for lab in resolve('{"row_index": 3, "metric": "task_success", "label": 1}')
    ] == [3]


def test_a_binary_label_file_is_refused(tmp_path):
    path = tmp_path / "labels.csv"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(InputError, match="not UTF-8 text"):
        read_label_file(path)
    with pytest.raises(InputError, match="cannot read the label file"):
        read_label_file(tmp_path / "missing.csv")
