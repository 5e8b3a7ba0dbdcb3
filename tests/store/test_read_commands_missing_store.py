"""Commands that only read runs never create a store: a missing SQLite file is exit 2, naming it."""

from __future__ import annotations

import pytest

from tooleval.cli.main import main
from tooleval.errors import StoreError
from tooleval.store import open_store

READERS = [
    ["runs", "list"],
    ["runs", "show", "abc"],
    ["runs", "export", "abc", "--json", "out.json"],
    ["report", "abc", "-o", "r.html"],
    ["compare", "a", "b"],
    ["aggregate", "--all"],
]


@pytest.mark.parametrize("argv", READERS, ids=lambda argv: " ".join(argv[:2]))
@pytest.mark.parametrize("via_env", [False, True])
def test_read_command_on_a_missing_store_is_exit_2(tmp_path, monkeypatch, capsys, argv, via_env):
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "no_such_dir" / "runs.db"
    if via_env:
        monkeypatch.setenv("TOOLEVAL_STORE", str(db))
        code = main(argv)
    else:
        monkeypatch.delenv("TOOLEVAL_STORE", raising=False)
        code = main([*argv, "--store", str(db)])
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert "no run store at" in err and str(db) in err and "\n" not in err
    assert not db.parent.exists()


def test_open_store_create_false_accepts_memory_and_existing_files(tmp_path):
    db = tmp_path / "runs.db"
    with pytest.raises(StoreError, match="no run store at"):
        open_store(db, create=False)
    open_store(db).close()
    open_store(db, create=False).close()
    open_store("sqlite:///:memory:", create=False).close()
