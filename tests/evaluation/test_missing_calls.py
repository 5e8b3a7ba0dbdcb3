"""One rule for a row whose ``tools_called`` has no value, in every format and entry point.

A missing value (JSON key absent, JSON null, an empty CSV/TSV cell, a Parquet null) is
refused with the row, the column and "write [] for a row where the agent called no
tool"; ``[]`` is an agent that called no tool, and is scored. ``tooleval score`` (the
compiled kernel's JSONL stream and the Python path alike), ``evaluate()`` on a file and
on rows, and ``tooleval dataset check`` say the same. A missing ``expected_tools`` is
another matter: the row has no reference and is unscored with the reason.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.evaluation.test_evaluate_formats import _write

import tooleval
from tooleval.cli.main import main
from tooleval.errors import InputError

RULE = 'a missing value is not "no calls"; write [] for a row where the agent called no tool'
GOOD = {"id": "a", "tools_called": ["f"], "expected_tools": ["f"]}
NONE_CALLED = {"id": "c", "tools_called": [], "expected_tools": ["f"]}


def _files(folder: Path) -> dict[str, tuple[Path, str]]:
    """Each format with row 2 missing its calls, and how that value was written."""
    made: dict[str, tuple[Path, str]] = {}
    for kind in ("jsonl", "json", "csv", "tsv", "parquet"):
        place = folder / kind
        place.mkdir()
        # JSON gets an explicit null; a table a cell with nothing in it (a Parquet null)
        missing = {"id": "b", "expected_tools": ["f"]}
        if kind in ("jsonl", "json"):
            missing["tools_called"] = None
        path = _write(place, [GOOD, missing, NONE_CALLED], kind)
        made[kind] = (path, "empty cell" if kind in ("csv", "tsv") else "null")
    marker = folder / "marker.csv"  # what pandas writes for a missing value
    marker.write_text('id,tools_called,expected_tools\na,"[""f""]","[""f""]"\nb,NaN,"[""f""]"\n')
    made["csv with NaN"] = (marker, "'NaN', read as no value")
    absent = folder / "absent.jsonl"
    absent.write_text(
        "".join(json.dumps(r) + "\n" for r in (GOOD, {"id": "b", "expected_tools": ["f"]}))
    )
    made["jsonl without the key"] = (absent, "")
    return made


@pytest.fixture(params=["kernel", "python"])
def engine(request, monkeypatch):
    if request.param == "python":
        monkeypatch.setenv("TOOLEVAL_NO_KERNEL", "1")
    else:
        monkeypatch.delenv("TOOLEVAL_NO_KERNEL", raising=False)
    return request.param


def test_score_refuses_a_missing_value_in_every_format(tmp_path, capsys, engine) -> None:
    for kind, (path, written) in _files(tmp_path).items():
        code = main(["score", str(path), "--metric", "tool_correctness", "--no-progress"])
        captured = capsys.readouterr()
        assert code == 2, (kind, captured)
        error = captured.err.strip()
        assert f"file {path}, row 2" in error, (kind, error)
        if written:  # the key is there, without a value
            assert f"column tools_called: no value ({written}): {RULE}" in error, (kind, error)
        else:
            assert "no 'tools_called' or 'messages'" in error, (kind, error)
            assert 'write "tools_called": [] for a row where the agent called no tool' in error
        # the row before it was scored; nothing after it
        assert [json.loads(x)["id"] for x in captured.out.splitlines()] in ([], ["a"])


def test_evaluate_refuses_it_on_files_and_rows(tmp_path, engine) -> None:
    for kind, (path, written) in _files(tmp_path).items():
        with pytest.raises(InputError) as caught:
            tooleval.evaluate(str(path), "tool_correctness")
        assert caught.value.row == 2, kind
        if written:
            assert caught.value.context.get("column") == "tools_called", kind
            assert RULE in str(caught.value), kind
    rows = [GOOD, {"id": "b", "tools_called": None, "expected_tools": ["f"]}]
    with pytest.raises(InputError, match=r"row 2, column tools_called: no value \(null\)"):
        tooleval.evaluate(rows, "tool_correctness")
    bound = [{"id": "b", "called": None, "expected_tools": ["f"]}]
    with pytest.raises(InputError, match="row 1, column called: no value"):
        tooleval.evaluate(bound, "tool_correctness", bind={"tools_called": "called"})


def test_an_empty_list_is_no_calls_and_is_scored(tmp_path, engine) -> None:
    for kind in ("jsonl", "json", "csv", "tsv", "parquet"):
        place = tmp_path / kind
        place.mkdir()
        path = _write(place, [GOOD, NONE_CALLED], kind)
        found = tooleval.evaluate(str(path), "tool_correctness")
        scored = {r.row_id: r.result for r in found.rows}
        assert scored["a"].score == 1.0 and scored["c"].score == 0.0, kind
        assert "(0 made)" in scored["c"].reason, kind


def test_a_bound_column_is_named(tmp_path, capsys) -> None:
    path = tmp_path / "bound.csv"
    path.write_text('id,called,expected_tools\na,"[""f""]","[""f""]"\nb,,"[""f""]"\n')
    argv = ["score", str(path), "--metric", "tool_correctness", "--bind", "tools_called=called"]
    assert main(argv) == 2
    assert f"row 2, column called: no value (empty cell): {RULE}" in capsys.readouterr().err
    assert main(["dataset", "check", str(path), "--bind", "tools_called=called"]) == 2
    out = capsys.readouterr().out
    assert f"row 2, column called: no value: {RULE}" in out


def test_dataset_check_says_it_for_every_format(tmp_path, capsys) -> None:
    for kind, (path, _) in _files(tmp_path).items():
        code = main(["dataset", "check", str(path)])
        out = capsys.readouterr().out
        assert code == 2, (kind, out)
        assert f"row 2, column tools_called: no value: {RULE}" in out, (kind, out)
        assert "1 of 3 rows have no tools_called value" in out or "1 of 2" in out, out
    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps(GOOD) + "\n" + json.dumps(NONE_CALLED) + "\n")
    assert main(["dataset", "check", str(good)]) == 0
    capsys.readouterr()


def test_a_missing_reference_is_an_unscored_row_not_an_error(tmp_path) -> None:
    """``expected_tools`` with no value: the row has no reference, so it is unscored with
    the reason (an empty bound cell says so); ``[]`` expects no call and is scored."""
    rows = [
        GOOD,
        {"id": "b", "tools_called": ["f"], "expected_tools": None},
        {"id": "c", "tools_called": ["f"], "expected_tools": []},
    ]
    for kind in ("jsonl", "csv"):
        place = tmp_path / kind
        place.mkdir()
        found = tooleval.evaluate(str(_write(place, rows, kind)), "tool_correctness")
        scored = {r.row_id: r.result for r in found.rows}
        assert scored["b"].score is None and "no expected_tools" in scored["b"].reason, kind
        assert scored["c"].score == 0.0 and "no calls expected" in scored["c"].reason, kind
