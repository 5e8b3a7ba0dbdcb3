"""``tooleval compare`` and ``runs show`` with the noise-aware figures, over real stored runs."""

from __future__ import annotations

import random

import orjson
import pytest
from tests.stats.conftest import METRIC, store_run

from tooleval.analysis.noise import compare_stats, read_attempts
from tooleval.cli.main import main
from tooleval.errors import ConfigError
from tooleval.store import open_store


def _flip(rows, rng, p):
    return [[(not v) if rng.random() < p else v for v in row] for row in rows]


def test_a_clear_drop_is_a_regression_and_fails_the_check(db, capsys, tmp_path):
    rng = random.Random(1)
    a = [[rng.random() < 0.85] for _ in range(300)]
    b = [[v and rng.random() > 0.25] for (v,) in a]  # a quarter of the passes break
    run_a, run_b = store_run(db, "a", a), store_run(db, "b", b)
    out_json = tmp_path / "cmp.json"
    code = main(
        [
            "compare",
            run_a,
            run_b,
            "--store",
            str(db),
            "--fail-on-regression",
            "--json",
            str(out_json),
        ]
    )
    out = capsys.readouterr().out
    assert code == 1
    line = next(x for x in out.splitlines() if x.strip().startswith(f"{METRIC}: Δ"))
    assert "McNemar p" in line and "MDE@80%" in line and line.endswith("REGRESSION")
    assert "regressed" in line and "/ fixed 0" in line
    stats = orjson.loads(out_json.read_bytes())["statistics"][0]
    assert stats["verdict"]["kind"] == "regression" and stats["interval"]["method"] == "newcombe"
    assert stats["interval"]["high"] < 0 and stats["mcnemar"]["fixed"] == 0


def test_noise_is_inconclusive_and_passes_the_check(db, capsys):
    rng = random.Random(2)
    a = [[rng.random() < 0.7] for _ in range(60)]
    b = _flip(a, rng, 0.1)
    run_a, run_b = store_run(db, "a", a), store_run(db, "b", b)
    assert main(["compare", run_a, run_b, "--store", str(db), "--fail-on-regression"]) == 0
    out = capsys.readouterr().out
    assert "INCONCLUSIVE" in out and "SE paired" in out and "unpaired" in out
    changed = any(x != y for (x,), (y,) in zip(a, b, strict=True))
    if changed and any(x and not y for (x,), (y,) in zip(a, b, strict=True)):
        assert (
            main(["compare", run_a, run_b, "--store", str(db), "--fail-on-any-regressed-row"]) == 1
        )


def test_repeated_runs_are_paired_by_row_with_the_cross_checks(db, capsys):
    rng = random.Random(3)
    p = [rng.uniform(0.2, 0.95) for _ in range(80)]
    a = [[rng.random() < q for _ in range(3)] for q in p]
    b = [[rng.random() < q - 0.15 for _ in range(3)] for q in p]
    run_a, run_b = store_run(db, "a", a), store_run(db, "b", b)
    with open_store(db) as store:
        [overall] = compare_stats(store, run_a, run_b, seed=5)
    s = overall.stats
    assert s.n == 80 and s.attempts_a == (3, 3)  # rows, not 240 attempts
    assert s.test == "paired-t" and s.mcnemar is None
    assert s.sign_flip is not None and s.sign_flip.seed == 5
    assert s.bootstrap is not None and s.bootstrap.low < s.delta < s.bootstrap.high
    assert main(["compare", run_a, run_b, "--store", str(db)]) == 0
    assert "sign-flip p" in capsys.readouterr().out


def test_categories_are_slices_with_holm(db):
    rng = random.Random(4)
    cats = ["refund" if i % 2 else "status" for i in range(200)]
    a = [[rng.random() < 0.8] for _ in range(200)]
    b = [
        [v if c == "status" else v and rng.random() > 0.4] for (v,), c in zip(a, cats, strict=True)
    ]
    run_a, run_b = store_run(db, "a", a, categories=cats), store_run(db, "b", b, categories=cats)
    with open_store(db) as store:
        stats = compare_stats(store, run_a, run_b)
    by_slice = {c.slice: c for c in stats}
    assert set(by_slice) == {"(all)", "refund", "status"}
    assert by_slice["refund"].verdict.kind == "regression"
    assert by_slice["status"].verdict.kind == "inconclusive"
    assert all(c.p_holm >= c.stats.p_value for c in stats)


def test_cluster_key(db, capsys):
    rng = random.Random(6)
    meta = [{"task": f"t{i // 10}"} for i in range(100)]
    a = [[rng.random() < 0.6] for _ in range(100)]
    b = _flip(a, rng, 0.2)
    run_a = store_run(db, "a", a, metadata=meta)
    run_b = store_run(db, "b", b, metadata=meta)
    with open_store(db) as store:
        [c] = compare_stats(store, run_a, run_b, cluster_key="task")
    assert c.stats.clusters == 10 and c.stats.df == 9 and c.stats.interval.method == "t"
    assert main(["compare", run_a, run_b, "--store", str(db), "--cluster-key", "task"]) == 0
    assert "10 clusters" in capsys.readouterr().out
    assert main(["compare", run_a, run_b, "--store", str(db), "--cluster-key", "nope"]) == 2
    assert "no metadata field 'nope'" in capsys.readouterr().err
    with open_store(db) as store, pytest.raises(ConfigError, match="row 'q0'"):
        read_attempts(store.get_run(run_a), store.iter_rows(run_a), cluster_key="nope")


@pytest.mark.parametrize("bad", ["95", "0", "1", "x", "-0.5"])
def test_bad_confidence_is_a_usage_error(db, bad, capsys):
    run = store_run(db, "a", [[True]] * 3)
    with pytest.raises(SystemExit) as exit_info:
        main(["compare", run, run, "--store", str(db), "--confidence", bad])
    assert exit_info.value.code == 2
    assert "--confidence: expected a number between 0 and 1" in capsys.readouterr().err


def test_error_rows_count_as_not_passed_and_unscored_rows_are_apart(db):
    verdicts = [[True], [None], [False], [True]]
    run = store_run(db, "a", verdicts)
    with open_store(db) as store:
        table = read_attempts(store.get_run(run), store.iter_rows(run))
    assert [r.values[METRIC] for r in table.rows] == [[1.0], [0.0], [0.0], [1.0]]


def test_runs_show_prints_intervals_per_metric_and_category(db, capsys):
    rng = random.Random(7)
    cats = ["refund" if i % 3 else "status" for i in range(45)]
    rows = [[rng.random() < 0.7 for _ in range(3)] for _ in range(45)]
    run = store_run(db, "a", rows, categories=cats)
    assert main(["runs", "show", run, "--store", str(db), "--bootstrap", "500"]) == 0
    out = capsys.readouterr().out
    assert f"{METRIC}: pass rate" in out and "n=45, K=3" in out and "95% t" in out
    assert "pass^3" in out and "pass@3" in out and "flaky rows" in out
    assert "refund:" in out and "status:" in out
    assert "bootstrap cross-check" in out and "seed 0" in out
    small = store_run(db, "b", [[True]] * 12)
    assert main(["runs", "show", small, "--store", str(db), "--confidence", "0.9"]) == 0
    out = capsys.readouterr().out
    assert "90% wilson, n=12, K=1" in out and "only 12 rows" in out
    assert "Clopper-Pearson" in out
