"""``compare`` of runs with different repeat counts, on dataset rows; too small to tell."""

from __future__ import annotations

import orjson
from tests.stats.conftest import METRIC, store_run

from tooleval.analysis.compare import compare_runs
from tooleval.cli.main import main
from tooleval.store import open_store


def test_one_attempt_against_three_pairs_dataset_rows(db):
    # q0: passed once in A, 2 of 3 in B (rate down: regressed, by its rate, not attempt 1)
    # q1: passed once in A, passes 3 of 3 in B (unchanged)
    # q2: failed in A, B fails attempt 1 then passes twice (rate up: fixed)
    # q3: an error in A (not passed), B passes 3 of 3 (fixed)
    # q4: failed in A, B fails every attempt (unchanged)
    run_a = store_run(db, "once", [[True], [True], [False], [None], [False]])
    run_b = store_run(
        db,
        "thrice",
        [
            [True, False, True],
            [True, True, True],
            [False, True, True],
            [True, True, True],
            [False, False, False],
        ],
    )
    with open_store(db) as store:
        c = compare_runs(store, run_a, run_b, statistics={})
    changes = {d.row_id: d.change for d in c.rows}
    assert changes == {
        "q0": "regressed",
        "q1": "unchanged",
        "q2": "fixed",
        "q3": "fixed",
        "q4": "unchanged",
    }
    q2 = next(d for d in c.rows if d.row_id == "q2")
    assert (q2.passes_a, q2.attempts_a, q2.passes_b, q2.attempts_b) == (0, 1, 2, 3)
    counts = c.metrics[METRIC]
    assert (counts.new, counts.missing, counts.fixed, counts.regressed) == (0, 0, 2, 1)
    [overall] = c.statistics
    assert counts.paired == overall.stats.n == 5
    assert c.unit == (
        "dataset rows; a row's figure is its pass rate over its attempts (A 1, B 3 per row)"
    )


def test_a_flaky_row_is_not_regressed_from_its_first_attempt(db):
    a = store_run(db, "a", [[True, False, True], [False, False, False]])
    b = store_run(db, "b", [[False, True, True], [False, False, False]])
    with open_store(db) as store:
        c = compare_runs(store, a, b)
    assert [d.change for d in c.rows] == ["unchanged", "unchanged"]
    assert c.attempts == (3, 3) and "A 3, B 3 per row" in c.unit


def test_fail_on_regression_says_when_the_runs_are_too_small_to_tell(db, capsys, tmp_path):
    # 100% -> 71.4% at n = 7: inconclusive
    a = store_run(db, "a", [[True]] * 7)
    b = store_run(db, "b", [[True]] * 5 + [[False]] * 2)
    out_json = tmp_path / "cmp.json"
    args = ["compare", a, b, "--store", str(db), "--json", str(out_json)]
    assert main([*args, "--fail-on-regression"]) == 0
    captured = capsys.readouterr()
    assert "INCONCLUSIVE" in captured.out
    assert f"{METRIC}: too small to tell: 7 rows detect a change of" in captured.out
    assert "the change seen, −28.6 pts, needs about" in captured.out
    assert "too small to tell for tool_correctness" in captured.err
    assert "--fail-on-inconclusive" in captured.err
    [small] = orjson.loads(out_json.read_bytes())["too_small"]
    assert small["n"] == 7 and small["rows_needed"] > 7
    assert main([*args, "--fail-on-inconclusive"]) == 1
    assert "(--fail-on-inconclusive: exit 1)" in capsys.readouterr().err


def test_no_row_differing_is_not_inconclusive_for_the_option(db, capsys):
    a = store_run(db, "a", [[True]] * 4)
    b = store_run(db, "b", [[True]] * 4)
    assert main(["compare", a, b, "--store", str(db), "--fail-on-inconclusive"]) == 0
    out = capsys.readouterr().out
    assert "no variance" in out and "too small to tell" not in out
