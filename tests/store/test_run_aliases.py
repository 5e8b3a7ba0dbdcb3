"""Run references people type (latest, -N, id prefixes): one resolver for the CLI and the viewer."""

from __future__ import annotations

import pytest

from tooleval.cli.main import main
from tooleval.errors import StoreError
from tooleval.store import open_store


@pytest.fixture
def three(tmp_path):
    db = tmp_path / "runs.db"
    store = open_store(db)
    ids = []
    for name in ("first", "second", "third"):
        run_id = store.create_run(name, dataset={}, connector={}, metrics=[])
        store.finish_run(run_id)
        ids.append(run_id)
    yield store, db, ids
    store.close()


def test_latest_and_minus_n_count_from_the_newest(three):
    store, _, (first, second, third) = three
    assert store.resolve_run_id("latest") == third
    assert store.resolve_run_id("LAST") == third
    assert store.resolve_run_id("-1") == third
    assert store.resolve_run_id("-2") == second
    assert store.resolve_run_id("-3") == first
    assert store.resolve_run_id(first) == first
    assert store.resolve_run_id(first[:-1]) == first


def test_bad_references_say_what_the_store_holds(three, tmp_path):
    store, _, _ = three
    with pytest.raises(StoreError, match="4th newest run, but .* holds 3 runs"):
        store.resolve_run_id("-4")
    with pytest.raises(StoreError, match="no run 'nope'"):
        store.resolve_run_id("nope")
    for odd in ("-0", "-", "--1", "- 1", "-1x"):
        with pytest.raises(StoreError):
            store.resolve_run_id(odd)
    empty = open_store(tmp_path / "empty.db")
    with pytest.raises(StoreError, match="holds no run yet"):
        empty.resolve_run_id("latest")
    empty.close()


@pytest.mark.parametrize("ref", ["latest", "-1", "-3"])
def test_every_cli_command_taking_a_run_id_takes_the_aliases(three, tmp_path, capsys, ref):
    store, db, (first, _, third) = three
    expected = third if ref != "-3" else first
    assert main(["runs", "show", ref, "--store", str(db)]) == 0
    assert expected in capsys.readouterr().out
    out = tmp_path / f"report{ref}.html"
    assert main(["report", ref, "-o", str(out), "--store", str(db)]) == 0
    assert expected in out.read_text(encoding="utf-8")
    assert main(["compare", "-2", ref, "--store", str(db)]) in (0, 1)
