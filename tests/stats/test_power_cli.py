"""``tooleval power``: rows and repeats needed, from a stored run's variances."""

from __future__ import annotations

import random

import orjson
import pytest
from tests.stats.conftest import METRIC, store_run

from tooleval.analysis.noise import read_attempts
from tooleval.analysis.power_advice import power_advice
from tooleval.cli.main import main
from tooleval.stats import mde, rows_needed
from tooleval.store import open_store


def _repeated(db, name, shift=0.0, seed=1):
    rng = random.Random(seed)
    p = [rng.uniform(0.2, 0.95) for _ in range(120)]
    return store_run(db, name, [[rng.random() < q - shift for _ in range(3)] for q in p])


def test_power_from_one_repeated_run(db, capsys, tmp_path):
    run = _repeated(db, "a")
    out_json = tmp_path / "p.json"
    args = ["power", run, "--store", str(db), "--delta", "0.03", "--delta", "0.2"]
    assert main([*args, "--json", str(out_json)]) == 0
    out = capsys.readouterr().out
    assert f"{METRIC}: n=120 rows, K=3/3" in out and "assumed 0: one run" in out
    assert "to detect 3.0 pts:" in out and "attempts per row on these 120 rows" in out
    [doc] = orjson.loads(out_json.read_bytes())
    with open_store(db) as store:
        table = read_attempts(store.get_run(run), store.iter_rows(run))
    advice = power_advice(table, METRIC)
    kw = {"omega2": 0.0, "sigma2_a": advice.sigma2_a, "k_a": 3}
    assert doc["mde"] == pytest.approx(mde(120, **kw))
    assert doc["deltas"]["0.03"]["rows"] == rows_needed(0.03, **kw)
    assert advice.sigma2_a == pytest.approx(
        sum(
            sum((v - sum(r) / 3) ** 2 for v in r) / 2
            for r in (x.values[METRIC] for x in table.rows)
        )
        / 120
    )


def test_power_against_a_second_run_measures_omega2(db, capsys):
    a, b = _repeated(db, "a", seed=1), _repeated(db, "b", shift=0.1, seed=2)
    assert main(["power", a, "--against", b, "--store", str(db)]) == 0
    assert "measured against the second run" in capsys.readouterr().out


def test_power_of_a_single_attempt_run_does_not_promise_repeats(db, capsys):
    run = store_run(db, "a", [[i % 3 == 0] for i in range(90)])
    assert main(["power", run, "--store", str(db)]) == 0
    assert "run with --repeat 2 or more" in capsys.readouterr().out


def test_power_refuses_unknown_metric_and_tiny_runs(db, capsys):
    run = store_run(db, "a", [[True]] * 5)
    assert main(["power", run, "--store", str(db), "--metric", "nope"]) == 2
    assert "no metric 'nope'" in capsys.readouterr().err
    one = store_run(db, "b", [[True]])
    assert main(["power", one, "--store", str(db)]) == 2
    assert "at least 2 scored rows" in capsys.readouterr().err
