"""bfcl_ast against BFCL's own score files, and the `tooleval bfcl` command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tooleval.benchmarks.bfcl.folder import load_bfcl
from tooleval.benchmarks.bfcl.metric import bfcl_ast
from tooleval.benchmarks.bfcl.reader import AST_CATEGORIES, CATEGORIES
from tooleval.cli.main import main

MODEL = "glyphh-ada-1.1"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bfcl_dir(shared_data):
    return shared_data / "bfcl"


@pytest.fixture(scope="module")
def verdicts(bfcl_dir):
    """{category: [(id, ours, theirs, our bfcl label, their label)]}."""
    out = {}
    for category, samples in load_bfcl(bfcl_dir / "results" / MODEL, bfcl_dir).items():
        if category.startswith("multi_turn"):  # replayed: tests/conformance/test_bfcl_multi_turn.py
            continue
        path = bfcl_dir / "scores" / MODEL / f"BFCL_v4_{category}_score.json"
        lines = path.read_text(encoding="utf-8").splitlines()
        failed = {e["id"]: e["error_type"] for e in map(json.loads, lines[1:]) if e}
        rows = []
        for sample in samples:
            result = bfcl_ast(sample)
            rows.append(
                (
                    sample.id,
                    bool(result.passed),
                    sample.id not in failed,
                    result.diagnosis.details["bfcl_error_type"],
                    failed.get(sample.id),
                )
            )
        out[category] = rows
    return out


def test_every_ast_category_was_scored(verdicts):
    expected = {c for c in CATEGORIES if c != "live_relevance"}  # no result file for it
    assert set(verdicts) == expected


@pytest.mark.parametrize("category", [c for c in CATEGORIES if c != "live_relevance"])
def test_agreement_per_category(verdicts, category):
    rows = verdicts[category]
    disagree = [r for r in rows if r[1] != r[2]]
    agreement = 1 - len(disagree) / len(rows)
    assert agreement >= 0.995, f"{category}: {agreement:.2%}; disagreements: {disagree[:5]}"


def test_every_disagreement_is_listed_in_the_docs(verdicts):
    doc = (REPO / "docs" / "conformance.md").read_text(encoding="utf-8")
    for rows in verdicts.values():
        for entry_id, ours, theirs, _, _ in rows:
            if ours != theirs:
                assert f"| {entry_id} |" in doc, f"{entry_id} disagrees but is not in the report"


def test_error_labels_agree_on_common_failures(verdicts):
    both_failed = [r for rows in verdicts.values() for r in rows if not r[1] and not r[2]]
    assert both_failed, "expected some failures in the reference run"
    differing = [r for r in both_failed if r[3] != r[4]]
    assert len(differing) <= len(both_failed) * 0.01, differing[:5]


def test_accuracy_matches_the_score_file_header(bfcl_dir, verdicts):
    header = json.loads(
        (bfcl_dir / "scores" / MODEL / "BFCL_v4_simple_python_score.json")
        .read_text()
        .splitlines()[0]
    )
    passed = sum(1 for r in verdicts["simple_python"] if r[1])
    assert passed == header["correct_count"]


def test_cli_prints_table_and_writes_jsonl(bfcl_dir, tmp_path, capsys):
    out = tmp_path / "verdicts.jsonl"
    code = main(
        [
            "bfcl",
            str(bfcl_dir / "results" / MODEL),
            "--data",
            str(bfcl_dir),
            "--output",
            str(out),
            "--category",
            "simple_python",
            "--category",
            "parallel",
        ]
    )
    assert code == 0
    table = capsys.readouterr().out
    assert "simple_python" in table and "94.50%" in table and "parallel" in table
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 600
    assert set(rows[0]) >= {"id", "category", "passed", "error"}
    failed = [r for r in rows if not r["passed"]]
    assert all(r["error"] for r in failed)
    assert {r["error"] for r in failed} <= {
        "wrong_count",
        "wrong_func_name",
        "missing_required",
        "unexpected_param",
        "type_error",
        "value_error",
        "missing_optional",
        "no_match",
        "decode_error",
    }


def test_cli_reports_bad_input_in_one_line(tmp_path, capsys):
    assert main(["bfcl", str(tmp_path / "nowhere"), "--data", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "results directory not found" in err and len(err.strip().splitlines()) == 1


def test_cli_subprocess(bfcl_dir):
    exe = Path(sys.executable).with_name("tooleval")
    proc = subprocess.run(
        [
            str(exe),
            "bfcl",
            str(bfcl_dir / "results" / MODEL),
            "--data",
            str(bfcl_dir),
            "--category",
            "live_parallel",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "live_parallel" in proc.stdout and "75.00%" in proc.stdout


def test_ast_categories_constant():
    assert "irrelevance" not in AST_CATEGORIES and "simple_java" in AST_CATEGORIES
