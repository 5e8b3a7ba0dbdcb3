"""`tooleval score --bind` and the gate (`--min-pass-rate`, `--max-unscored-rate`), on real files."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tooleval.cli.main import main

EXE = str(Path(sys.executable).with_name("tooleval"))


def rows(n: int = 10, *, gold: str = "gold") -> list[dict]:
    """Rows whose reference is in ``gold``: every third row calls the wrong tool."""
    return [
        {"id": f"r{i}", "tools_called": ["a"] if i % 3 else ["b"], gold: ["a"]} for i in range(n)
    ]


def write_jsonl(path: Path, items: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in items))
    return path


def write_csv(path: Path, items: list[dict]) -> Path:
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(items[0]))
        writer.writeheader()
        for item in items:
            writer.writerow(
                {k: json.dumps(v) if isinstance(v, list) else v for k, v in item.items()}
            )
    return path


def write_parquet(path: Path, items: list[dict]) -> Path:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(items), path)
    return path


WRITERS = {"jsonl": write_jsonl, "csv": write_csv, "parquet": write_parquet}


def cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [EXE, "score", *args], capture_output=True, text=True, timeout=120, env=env
    )


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("kind", ["jsonl", "csv", "parquet"])
def test_bind_reads_the_reference_from_another_column(tmp_path, kind):
    data = WRITERS[kind](tmp_path / f"d.{kind}", rows())
    out = tmp_path / "out.jsonl"
    args = ["score", str(data), "--metric", "tool_correctness", "-o", str(out)]
    assert main([*args, "--bind", "expected_tools=gold"]) == 0
    scores = [r["score"] for r in read(out)]
    assert scores == [0.0 if i % 3 == 0 else 1.0 for i in range(10)]


@pytest.mark.parametrize("kind", ["jsonl", "csv", "parquet"])
def test_no_row_with_the_needed_field_is_exit_2_suggesting_the_bind(tmp_path, kind):
    data = WRITERS[kind](tmp_path / f"d.{kind}", rows())
    out = tmp_path / "out.jsonl"
    done = cli(str(data), "--metric", "tool_correctness", "-o", str(out))
    assert done.returncode == 2, done.stderr
    assert "needs 'expected_tools'" in done.stderr
    assert "the likely one is 'gold' (--bind expected_tools=gold)" in done.stderr
    assert not out.exists()  # no file of unscored rows left behind


def test_no_row_with_the_field_on_stdin_and_on_the_kernel_path(tmp_path):
    data = write_jsonl(tmp_path / "d.jsonl", rows())
    done = subprocess.run(
        [EXE, "score", "-", "--metric", "tool_call_f1", "--workers", "2"],
        input=data.read_text(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "--bind expected_tools=gold" in done.stderr


def test_some_rows_without_a_reference_are_still_scored(tmp_path):
    items = rows(4, gold="expected_tools")
    del items[1]["expected_tools"]
    data = write_jsonl(tmp_path / "d.jsonl", items)
    out = tmp_path / "out.jsonl"
    assert main(["score", str(data), "--metric", "tool_correctness", "-o", str(out)]) == 0
    assert [r["score"] for r in read(out)] == [0.0, None, 1.0, 0.0]


def test_a_key_the_field_had_is_kept_in_metadata(tmp_path):
    items = [{"id": "x", "tools_called": ["a"], "gold": ["a"], "expected_tools": ["zzz"]}]
    data = write_jsonl(tmp_path / "d.jsonl", items)
    out = tmp_path / "out.jsonl"
    base = ["score", str(data), "--metric", "tool_correctness", "-o", str(out)]
    assert main([*base, "--bind", "expected_tools=gold"]) == 0
    assert read(out)[0]["score"] == 1.0


@pytest.mark.parametrize(
    "spec,said",
    [
        ("expected_tools", "expected --bind FIELD=COLUMN"),
        ("=gold", "expected --bind FIELD=COLUMN"),
        ("expected_tool=gold", "did you mean 'expected_tools'"),
        ("expected_tools=glod", "no row has a key 'glod'"),
    ],
)
def test_bad_bind_specs_are_exit_2_naming_the_problem(tmp_path, spec, said):
    data = write_jsonl(tmp_path / "d.jsonl", rows())
    done = cli(str(data), "--metric", "tool_correctness", "--bind", spec)
    assert done.returncode == 2 and said in done.stderr, done.stderr


def test_bad_bind_column_on_csv_lists_the_columns(tmp_path):
    data = write_csv(tmp_path / "d.csv", rows())
    done = cli(str(data), "--metric", "tool_correctness", "--bind", "expected_tools=glod")
    assert done.returncode == 2 and "no column 'glod'" in done.stderr
    assert "did you mean 'gold'" in done.stderr


def test_bind_is_refused_with_a_benchmark_format(tmp_path):
    data = write_jsonl(tmp_path / "d.jsonl", rows())
    code = main(["score", str(data), "--format", "bfcl", "--bind", "expected_tools=gold"])
    assert code == 2


# ------------------------------------------------------------------------------ the gate


def scored_file(tmp_path: Path) -> Path:
    """10 rows: 6 pass, 3 fail, 1 unscored (no reference)."""
    items = rows(10, gold="expected_tools")
    del items[9]["expected_tools"]
    return write_jsonl(tmp_path / "d.jsonl", items)


def test_gate_passes_and_fails_with_the_exit_codes_of_run(tmp_path):
    data = scored_file(tmp_path)
    base = [str(data), "--metric", "tool_correctness", "-o", str(tmp_path / "o.jsonl")]
    ok = cli(*base, "--min-pass-rate", "0.6")
    assert ok.returncode == 0, ok.stderr
    line = ok.stderr.splitlines()[0]
    assert line.startswith("gate pass  tool_correctness: pass rate 66.7% [35.4, 87.9]")
    assert "6 of 9 scored rows, n=9; 1 unscored not counted) >= 60.0% (--min-pass-rate)" in line
    assert ok.stderr.rstrip().endswith("gate passed")
    failed = cli(*base, "--min-pass-rate", "tool_correctness=0.7")
    assert failed.returncode == 1 and "gate FAIL" in failed.stderr and "< 70.0%" in failed.stderr
    assert failed.stderr.rstrip().endswith("gate failed")
    assert (tmp_path / "o.jsonl").exists()  # a failed gate still writes every result


def test_unscored_rows_count_only_against_max_unscored_rate(tmp_path):
    data = scored_file(tmp_path)
    base = [str(data), "--metric", "tool_correctness"]
    over = cli(*base, "--max-unscored-rate", "0.05")
    assert over.returncode == 1
    assert "unscored 1/10 rows (10.0%) > 5.0% allowed (--max-unscored-rate)" in over.stderr
    within = cli(*base, "--max-unscored-rate", "0.1")
    assert within.returncode == 0, within.stderr
    assert "6 of 9 scored rows passed (default check: at least one)" in within.stderr


def test_per_metric_rules_replace_the_rule_for_all(tmp_path):
    data = scored_file(tmp_path)
    args = [str(data), "--metric", "tool_correctness", "--metric", "tool_call_f1"]
    done = cli(*args, "--min-pass-rate", "0.9", "--min-pass-rate", "tool_correctness=0.5")
    assert done.returncode == 1
    lines = [x for x in done.stderr.splitlines() if x.startswith("gate ")]
    assert lines[0].startswith("gate pass  tool_correctness:") and ">= 50.0%" in lines[0]
    assert lines[1].startswith("gate FAIL  tool_call_f1:") and "< 90.0%" in lines[1]


def test_all_rows_unscored_fail_a_gate_never_pass_it(tmp_path):
    items = [{"id": "a", "tools_called": ["x"], "expected_tools": None}]
    items.append({"id": "b", "tools_called": ["x"], "expected_tools": ["x"]})
    del items[1]["expected_tools"]
    data = write_jsonl(tmp_path / "d.jsonl", items)
    done = cli(str(data), "--metric", "tool_correctness", "--min-pass-rate", "0")
    assert done.returncode == 1, done.stderr
    assert "no scored rows (2 unscored), so the pass rate cannot reach 0.0%" in done.stderr


def test_nothing_passed_fails_by_default_once_a_gate_is_given(tmp_path):
    items = [{"id": "a", "tools_called": ["x"], "expected_tools": ["y"]}]
    data = write_jsonl(tmp_path / "d.jsonl", items)
    done = cli(str(data), "--metric", "tool_correctness", "--max-unscored-rate", "1")
    assert done.returncode == 1 and "--min-pass-rate tool_correctness=0" in done.stderr
    assert cli(str(data), "--metric", "tool_correctness").returncode == 0  # no gate: exit 0


@pytest.mark.parametrize(
    "option,value,said",
    [
        ("--min-pass-rate", "tool_corectness=0.9", "did you mean 'tool_correctness'"),
        ("--min-pass-rate", "1.5", "between 0 and 1"),
        ("--min-pass-rate", "-0.1", "between 0 and 1"),
        ("--max-unscored-rate", "nan", "between 0 and 1"),
        ("--max-unscored-rate", "90%", "between 0 and 1"),
        ("--min-pass-rate", "=0.9", "expected [METRIC=]RATE"),
    ],
)
def test_bad_gate_options_are_exit_2_before_any_row(tmp_path, option, value, said):
    data = scored_file(tmp_path)
    out = tmp_path / "o.jsonl"
    done = cli(str(data), "--metric", "tool_correctness", option, value, "-o", str(out))
    assert done.returncode == 2 and said in done.stderr, done.stderr
    assert not out.exists()


def test_the_same_metric_twice_in_a_gate_option_is_refused(tmp_path):
    data = scored_file(tmp_path)
    args = ["score", str(data), "--metric", "tool_correctness"]
    assert main([*args, "--min-pass-rate", "0.5", "--min-pass-rate", "0.6"]) == 2


def test_empty_file_is_exit_2_with_a_gate_and_a_table(tmp_path):
    data = tmp_path / "empty.jsonl"
    data.write_text("")
    done = cli(str(data), "--metric", "tool_correctness", "--min-pass-rate", "0.5", "--table")
    assert done.returncode == 2 and "empty" in done.stderr
    blank = tmp_path / "blank.jsonl"
    blank.write_text("\n\n")
    done = cli(str(blank), "--metric", "tool_correctness", "--table")
    assert done.returncode == 2 and "the file is empty" in done.stderr
    done = subprocess.run(  # stdin: only blank lines, read to the end
        [EXE, "score", "-", "--metric", "tool_correctness", "--table", "--min-pass-rate", "0"],
        input="\n\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "no rows to score" in done.stderr
    assert "per-row results" not in done.stderr


def test_gate_on_the_kernel_path_matches_python(tmp_path):
    data = write_jsonl(tmp_path / "d.jsonl", rows(300, gold="expected_tools"))
    base = [str(data), "--metric", "tool_correctness", "--min-pass-rate", "0.5"]
    fast = cli(*base, "--workers", "2", "-o", str(tmp_path / "a.jsonl"))
    env = {**__import__("os").environ, "TOOLEVAL_NO_KERNEL": "1"}
    slow = cli(*base, "-o", str(tmp_path / "b.jsonl"), env=env)
    assert fast.returncode == slow.returncode == 0
    assert "200 of 300 scored rows" in fast.stderr
    assert [x for x in fast.stderr.splitlines() if x.startswith("gate")] == [
        x for x in slow.stderr.splitlines() if x.startswith("gate")
    ]
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()


_NO_STORE_EXTRA = (
    "import sys; sys.modules['sqlalchemy'] = None; sys.modules['alembic'] = None; "
    "from tooleval.cli.main import main; sys.exit(main(sys.argv[1:]))"
)


def test_the_gate_of_score_is_the_run_gate_and_needs_no_store_extra(tmp_path):
    data = scored_file(tmp_path)
    args = ["score", str(data), "--metric", "tool_correctness", "--min-pass-rate", "0.7"]
    done = subprocess.run(
        [sys.executable, "-c", _NO_STORE_EXTRA, *args], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1, done.stderr
    assert "pass rate 66.7% [35.4, 87.9]" in done.stderr and "< 70.0%" in done.stderr
    from tooleval.analysis.floors import GateCheck, GateResult
    from tooleval.cli._score_gate import GateRules, check_gate
    from tooleval.stats.tally import Tally

    verdict = check_gate({"m": Tally(passed=6, failed=3, unscored=1)}, GateRules({None: 0.7}))
    assert isinstance(verdict, GateResult) and isinstance(verdict.checks[0], GateCheck)
    assert verdict.checks[0].rule == "point" and verdict.checks[0].n == 9
