"""A receiver never touches a file that is not its own: store, buffer and events stay apart.

Real ``tooleval collect`` processes on 127.0.0.1, real SQLite stores, real
signals. Each receiver's open-session buffer is named from its store, locked
while it runs, restored only into the store it came from; a buffer line that
cannot be read is kept aside with the reason, never deleted.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from tests.monitor.test_restart import _calls, _rows
from tests.procs import finish, read_line, wait_until

from tooleval.cli.main import main
from tooleval.store import open_store


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "TOOLEVAL_STORE"}


def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "tooleval.cli.main", "collect", "--port", "0", *args]


class Receiver:
    def __init__(self, cwd: Path, *args: str, idle: float = 1.5) -> None:
        self.proc = subprocess.Popen(
            _command("--idle-timeout", str(idle), *args),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd, env=_env(),
        )  # fmt: skip
        self.lines: list[str] = []
        self.url = read_line(self.proc, startswith="listening on ", seen=self.lines).split()[2]

    def post(self, body: dict) -> None:
        assert httpx.post(self.url + "/v1/traces", json=body, timeout=10).status_code == 200

    def stop(self) -> tuple[str, str]:
        self.proc.send_signal(signal.SIGTERM)
        out, err = finish(self.proc)
        assert self.proc.returncode == 0, err
        return "".join(self.lines) + out, err


def _refused(cwd: Path, *args: str, real: bool = True) -> str:
    """Run a receiver that must be refused before it listens; its stderr.

    ``real=False``: through ``main`` in this process (a variant of a refusal a real
    process is refused for in another case); a receiver wrongly started there ends on
    its own after a second without traffic, so a wrong answer fails instead of hanging.
    """
    if not real:
        return _refused_here(cwd, *args)
    proc = subprocess.Popen(
        _command(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        cwd=cwd, env=_env(),
    )  # fmt: skip
    out, err = finish(proc)
    assert proc.returncode == 2, (out, err)
    assert "listening on" not in out
    return err


def _refused_here(cwd: Path, *args: str) -> str:
    import contextlib
    import io

    err = io.StringIO()
    before = os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()) as out:
            code = main(["collect", "--port", "0", "--idle-timeout", "1", *args])
    finally:
        os.chdir(before)
    assert code == 2, (out.getvalue(), err.getvalue())
    assert "listening on" not in out.getvalue()
    return err.getvalue()


@pytest.fixture
def store_with_runs(tmp_path: Path, monkeypatch) -> Path:
    """A SQLite run store holding one stored run (its bytes are compared after each attack)."""
    monkeypatch.delenv("TOOLEVAL_STORE", raising=False)
    db = tmp_path / "runs.db"
    spans = tmp_path / "spans.jsonl"
    spans.write_text(json.dumps(_calls("stored-before", 7, 0, 2)) + "\n")
    assert main(["monitor", str(spans), "--store", str(db)]) == 0
    assert [r.row_id for r in _rows(db)] == ["stored-before"]
    return db


@pytest.mark.parametrize(
    "link", ["same", "symlink", "hardlink", "dotted"], ids=lambda link: f"buffer-{link}"
)
def test_a_buffer_that_is_the_store_is_refused_before_any_work(tmp_path, store_with_runs, link):
    db = store_with_runs
    before = db.read_bytes()
    buffer = {
        "same": db,
        "symlink": tmp_path / "link.jsonl",
        "hardlink": tmp_path / "hard.jsonl",
        "dotted": tmp_path / "sub" / ".." / db.name,
    }[link]
    if link == "symlink":
        buffer.symlink_to(db)
    elif link == "hardlink":
        os.link(db, buffer)
    elif link == "dotted":
        (tmp_path / "sub").mkdir()
    err = _refused(tmp_path, "--store", str(db), "--buffer", str(buffer), real=link == "same")
    assert "--buffer" in err and "run store" in err
    assert db.read_bytes() == before
    assert [r.row_id for r in _rows(db)] == ["stored-before"]


@pytest.mark.parametrize("link", ["same", "symlink", "hardlink"], ids=lambda link: f"emit-{link}")
def test_an_emit_file_that_is_the_store_is_refused_before_any_work(tmp_path, store_with_runs, link):
    db = store_with_runs
    before = db.read_bytes()
    emit = {"same": db, "symlink": tmp_path / "ev.jsonl", "hardlink": tmp_path / "hard.jsonl"}[link]
    if link == "symlink":
        emit.symlink_to(db)
    elif link == "hardlink":
        os.link(db, emit)
    err = _refused(
        tmp_path, "--store", str(db), "--emit", str(emit), "--emit-passes", real=link == "same"
    )
    assert "--emit" in err and ("run store" in err or "SQLite" in err)
    assert db.read_bytes() == before


def test_an_emit_file_that_is_the_buffer_or_a_foreign_file_is_refused(tmp_path):
    db = tmp_path / "a.db"
    err = _refused(
        tmp_path, "--store", str(db), "--emit", str(tmp_path / "a.db.open-sessions.jsonl")
    )
    assert "open-session buffer" in err
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes, not events\n")
    err = _refused(tmp_path, "--store", str(db), "--emit", str(notes))
    assert "--emit" in err and "left alone" in err
    assert notes.read_text() == "my notes, not events\n"
    blob = tmp_path / "model.bin"
    blob.write_bytes(b"\x00\x01binary")
    assert "binary" in _refused(tmp_path, "--no-store", "--emit", str(blob), real=False)
    assert blob.read_bytes() == b"\x00\x01binary"


def test_a_file_that_is_not_a_buffer_is_never_read_or_replaced_as_one(tmp_path):
    dataset = tmp_path / "cases.jsonl"
    dataset.write_text('{"id": "r1", "input": "hi", "expected_tools": ["lookup"]}\n')
    before = dataset.read_bytes()
    err = _refused(tmp_path, "--store", str(tmp_path / "s.db"), "--buffer", str(dataset))
    assert "not an open-session buffer" in err
    assert dataset.read_bytes() == before


def test_two_receivers_in_one_folder_keep_their_own_buffers_and_stores(tmp_path):
    a_db, b_db = tmp_path / "a.db", tmp_path / "b.db"
    a = Receiver(tmp_path, "--store", str(a_db), idle=300)
    b = Receiver(tmp_path, "--store", str(b_db), idle=300)
    a.post(_calls("conv-a", 1, 0, 3))
    b.post(_calls("conv-b", 2, 0, 4))
    said_a, _ = a.stop()
    said_b, _ = b.stop()
    assert "a.db.open-sessions.jsonl" in said_a and "b.db.open-sessions.jsonl" in said_b
    assert (tmp_path / "a.db.open-sessions.jsonl").exists()
    assert (tmp_path / "b.db.open-sessions.jsonl").exists()
    # restarted in the other order, each restores its own session into its own store
    b = Receiver(tmp_path, "--store", str(b_db))
    a = Receiver(tmp_path, "--store", str(a_db))
    a.post(_calls("conv-a", 1, 3, 2))
    b.post(_calls("conv-b", 2, 4, 1))

    def calls(db: Path, session: str) -> int:
        rows = _rows(db)
        assert {r.row_id for r in rows} <= {session}  # never the other receiver's session
        return sum(len(r.sample.actual_calls()) for r in rows)

    wait_until(lambda: calls(a_db, "conv-a") == 5, "conv-a stored in a")
    wait_until(lambda: calls(b_db, "conv-b") == 5, "conv-b stored in b")
    a.stop()
    b.stop()
    assert calls(a_db, "conv-a") == 5 and calls(b_db, "conv-b") == 5
    assert not list(tmp_path.glob("*.open-sessions.jsonl"))


def test_a_second_receiver_on_the_same_buffer_is_refused(tmp_path):
    db = tmp_path / "s.db"
    first = Receiver(tmp_path, "--store", str(db))
    err = _refused(tmp_path, "--store", str(db))
    assert "another receiver" in err and "s.db.open-sessions.jsonl" in err
    shared = tmp_path / "shared.jsonl"
    other = Receiver(tmp_path, "--store", str(tmp_path / "o.db"), "--buffer", str(shared))
    err = _refused(tmp_path, "--store", str(tmp_path / "p.db"), "--buffer", str(shared))
    assert "another receiver" in err
    first.stop()
    other.stop()
    # once stopped, the buffer is free again
    Receiver(tmp_path, "--store", str(db)).stop()


def test_a_buffer_is_restored_only_into_the_store_it_came_from(tmp_path):
    a_db, b_db = tmp_path / "a.db", tmp_path / "b.db"
    buffer = tmp_path / "open.jsonl"
    a = Receiver(tmp_path, "--store", str(a_db), "--buffer", str(buffer), idle=300)
    a.post(_calls("conv-a", 1, 0, 3))
    a.stop()
    kept = buffer.read_bytes()
    err = _refused(tmp_path, "--store", str(b_db), "--buffer", str(buffer))
    assert "a.db" in err and "restored only into the store they came from" in err
    assert buffer.read_bytes() == kept  # nothing lost
    assert not b_db.exists() or not _rows(b_db)
    a = Receiver(tmp_path, "--store", str(a_db), "--buffer", str(buffer))
    assert any("restored 3 span record(s)" in line for line in a.lines)
    a.stop()


@pytest.mark.parametrize("cut", ["half-a-record", "garbage-line", "one-byte"])
def test_a_buffer_whose_last_record_is_cut_keeps_the_record_aside(tmp_path, cut):
    db = tmp_path / "s.db"
    first = Receiver(tmp_path, "--store", str(db), idle=300)
    first.post(_calls("conv-a", 1, 0, 4))
    first.stop()
    buffer = tmp_path / "s.db.open-sessions.jsonl"
    lines = buffer.read_bytes().splitlines(keepends=True)
    last = lines[-1]
    damaged = {
        "half-a-record": last[: len(last) // 2],
        "garbage-line": b"\x00\xff not a fact\n",
        "one-byte": last[:1],
    }[cut]
    buffer.write_bytes(b"".join(lines[:-1]) + damaged)
    second = Receiver(tmp_path, "--store", str(db))
    assert any("restored 3 span record(s)" in line for line in second.lines)
    said, err = second.stop()
    assert "could not be read" in err and "unreadable.jsonl" in err
    aside = tmp_path / "s.db.open-sessions.jsonl.unreadable.jsonl"
    (record,) = [json.loads(line) for line in aside.read_text().splitlines()]
    assert record["line"] == len(lines)
    assert record["reason"]
    assert record["text"] == damaged.decode("utf-8", "replace").rstrip("\n")
    if cut != "half-a-record":
        return
    # a second damaged restart appends; the first record is still there
    third = Receiver(tmp_path, "--store", str(db), idle=300)
    third.post(_calls("conv-b", 2, 0, 2))
    third.stop()
    buffer.write_bytes(buffer.read_bytes() + b"{cut")
    Receiver(tmp_path, "--store", str(db)).stop()
    assert len(aside.read_text().splitlines()) == 2


def test_the_store_keeps_its_runs_through_stop_and_restart(tmp_path, store_with_runs):
    db = store_with_runs
    events = str(tmp_path / "events.jsonl")
    receiver = Receiver(tmp_path, "--store", str(db), "--emit", events, idle=300)
    receiver.post(_calls("conv-x", 3, 0, 2))
    receiver.stop()
    receiver = Receiver(tmp_path, "--store", str(db), "--emit", events)
    wait_until(lambda: "conv-x" in {r.row_id for r in _rows(db)}, "conv-x stored")
    receiver.stop()
    store = open_store(db)
    try:
        assert len(store.list_runs()) == 3  # the first, and one per receiver
    finally:
        store.close()
