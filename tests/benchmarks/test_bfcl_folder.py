"""A BFCL results folder read category by category, and an unlisted model's mode from its file.

Real result files are written into tmp folders; the questions and answers are
BFCL's own (../shared/data/bfcl, and bfcl-eval's data for multi-turn). A
missing bfcl-eval is simulated the way a Python without the package sees it:
its import fails.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.conformance.bfcl_multi_turn_reference import load_multi_turn, mutate

from tooleval.benchmarks.bfcl import read_bfcl
from tooleval.benchmarks.bfcl.folder import file_mode, read_folder
from tooleval.cli.main import main

SIMPLE = [{"id": "simple_python_0", "result": "[calculate_triangle_area(base=10, height=5)]"}]


def _write(folder: Path, category: str, rows: list[dict[str, Any]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"BFCL_v4_{category}_result.json"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _fc_turns(ground_truth: list[list[str]], seed: int, reply: str | None) -> list[list[Any]]:
    """The ground truth as a function-calling model's turns, each ended by a text reply."""
    turns, mode = mutate(ground_truth, "exact", seed)
    assert mode == "fc"
    return [[*turn, reply] if reply is not None else turn for turn in turns]


@pytest.fixture
def no_bfcl_eval(monkeypatch):
    """A Python where bfcl-eval cannot be imported."""
    for name in [m for m in sys.modules if m == "bfcl_eval" or m.startswith("bfcl_eval.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "bfcl_eval", None)


@pytest.fixture
def mixed_folder(shared_data, tmp_path):
    """simple_python and multi_turn_base results of one (unlisted) model."""
    folder = tmp_path / "my-model"
    _write(folder, "simple_python", SIMPLE)
    entry, truth = load_multi_turn("multi_turn_base")[0]
    _write(folder, "multi_turn_base", [{"id": entry["id"], "result": _fc_turns(truth, 0, None)}])
    return folder


def test_a_folder_without_bfcl_eval_scores_the_other_categories(
    mixed_folder, shared_data, tmp_path, capsys, no_bfcl_eval
):
    data = str(shared_data / "bfcl")
    out = tmp_path / "verdicts.jsonl"
    assert main(["bfcl", str(mixed_folder), "--data", data, "-o", str(out)]) == 0
    captured = capsys.readouterr()
    refused = [line for line in captured.err.splitlines() if "not scored" in line]
    assert len(refused) == 1
    assert "category multi_turn_base not scored" in refused[0]
    assert "pip install --no-deps bfcl-eval==2026.3.23 mpmath" in refused[0]
    assert "1 rows in BFCL_v4_multi_turn_base_result.json" in refused[0]
    table = captured.out.splitlines()
    assert any(line.startswith("simple_python") and "100.00%" in line for line in table)
    assert any(line.startswith("multi_turn_base") and "not scored" in line for line in table)
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ["simple_python_0"]


def test_asking_for_a_category_that_cannot_be_scored_is_exit_2(
    mixed_folder, shared_data, capsys, no_bfcl_eval
):
    args = ["bfcl", str(mixed_folder), "--data", str(shared_data / "bfcl")]
    assert main([*args, "--category", "multi_turn_base"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "pip install --no-deps bfcl-eval" in err
    assert main([*args, "--category", "simple_python"]) == 0


def test_a_folder_of_refused_categories_only_is_exit_2(shared_data, tmp_path, capsys, no_bfcl_eval):
    entry, truth = load_multi_turn("multi_turn_base")[0]  # read before bfcl-eval is hidden
    folder = tmp_path / "my-model"
    _write(folder, "multi_turn_base", [{"id": entry["id"], "result": _fc_turns(truth, 0, None)}])
    assert main(["bfcl", str(folder), "--data", str(shared_data / "bfcl")]) == 2
    err = capsys.readouterr().err.strip()
    assert "no BFCL category can be scored on this machine: multi_turn_base:" in err


def test_score_format_bfcl_scores_the_rest_and_warns(
    mixed_folder, shared_data, tmp_path, capsys, no_bfcl_eval
):
    out = tmp_path / "results.jsonl"
    code = main(
        ["score", str(mixed_folder), "--format", "bfcl", "--data", str(shared_data / "bfcl")]
        + ["-o", str(out)]
    )
    assert code == 0
    err = capsys.readouterr().err
    assert "warning: BFCL category multi_turn_base not scored:" in err
    assert "pip install --no-deps bfcl-eval" in err
    assert len(out.read_text().splitlines()) == 1


def test_the_python_reader_warns_for_each_refused_category(mixed_folder, shared_data, no_bfcl_eval):
    with pytest.warns(UserWarning, match="multi_turn_base not scored") as caught:
        samples = read_bfcl(mixed_folder, shared_data / "bfcl")
    assert [s.id for s in samples] == ["simple_python_0"]
    assert any("decided from each file's results" in str(w.message) for w in caught)


def test_with_bfcl_eval_the_whole_folder_is_scored(mixed_folder, shared_data):
    folder = read_folder(mixed_folder, shared_data / "bfcl")
    assert list(folder.samples) == ["simple_python", "multi_turn_base"] and not folder.refused
    assert folder.modes == {
        "simple_python": ("prompt", "every result is text"),
        "multi_turn_base": ("fc", folder.modes["multi_turn_base"][1]),
    }


def _verdicts(path: Path) -> list[tuple[str, bool, str | None]]:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return [(r["id"], r["passed"], r["bfcl_error_type"]) for r in rows]


def test_an_fc_model_whose_turns_end_in_text_is_read_as_fc(shared_data, tmp_path, capsys):
    """A text reply ending each turn no longer makes the whole entry prompt-style."""
    pairs = load_multi_turn("multi_turn_base")[:3]
    folder = tmp_path / "unlisted-model"
    rows = [
        {"id": entry["id"], "result": _fc_turns(truth, seed, "Done: anything else?")}
        for seed, (entry, truth) in enumerate(pairs)
    ]
    _write(folder, "multi_turn_base", rows)
    data = str(shared_data / "bfcl")
    auto, forced = tmp_path / "auto.jsonl", tmp_path / "fc.jsonl"
    assert main(["bfcl", str(folder), "--data", data, "-o", str(auto)]) == 0
    out = capsys.readouterr().out
    steps = sum(len(turn) for row in rows for turn in row["result"])
    texts = sum(len(row["result"]) for row in rows)
    assert (
        f"mode for multi_turn_base: fc, decided from its results "
        f"({steps - texts} of {steps} steps are calls, {texts} are text)"
    ) in out
    assert main(["bfcl", str(folder), "--data", data, "--mode", "fc", "-o", str(forced)]) == 0
    assert _verdicts(auto) == _verdicts(forced)
    # entry 0's exact calls miss a result in BFCL's own check too (one step per turn)
    assert [passed for _, passed, _ in _verdicts(auto)] == [False, True, True]
    prompt = tmp_path / "prompt.jsonl"  # what the one-bare-string rule read them as
    assert main(["bfcl", str(folder), "--data", data, "--mode", "prompt", "-o", str(prompt)]) == 0
    assert {error for _, _, error in _verdicts(prompt)} == {"multi_turn:empty_turn_model_response"}


def test_a_prompt_model_file_stays_prompt():
    rows = [{"result": [["[cd(folder='a')]", "I moved."], ["[ls()]"]]}]
    assert file_mode(rows) == ("prompt", "every step is text")
    assert file_mode([{"result": [[[], "text"]]}]) == ("fc", "1 of 2 steps are calls, 1 are text")
    assert file_mode([]) == ("prompt", "every result is text")
