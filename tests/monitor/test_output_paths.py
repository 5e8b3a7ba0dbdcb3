"""Every option that writes a file leaves alone what is not its own (issue 37).

One check, :func:`tooleval.io_atomic.check_output_path`, runs before any work
in every command: the output is never the dataset, the run store (by path,
``sqlite:///`` URL, symbolic or hard link) or a receiver's buffer, and never
replaces an existing file of another kind. Each attack runs the real command
on real files and checks the victim's bytes afterwards.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tooleval.cli.main import main
from tooleval.io_atomic import OPEN_SESSION_BUFFER

CONVERSATION = {
    "id": "c1",
    "messages": [
        {"role": "user", "content": "refund order 7"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "t1",
                    "type": "function",
                    "function": {"name": "lookup_order", "arguments": '{"id": 7}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "t1", "content": '{"status": "paid"}'},
        {"role": "assistant", "content": "Order 7 is paid."},
    ],
}


@pytest.fixture
def world(tmp_path: Path, monkeypatch) -> dict[str, Path]:
    """A dataset, a conversation log, a run store with two runs, a buffer, other files."""
    monkeypatch.delenv("TOOLEVAL_STORE", raising=False)
    monkeypatch.chdir(tmp_path)
    dataset = tmp_path / "cases.jsonl"
    dataset.write_text(
        json.dumps({"id": "r1", "tools_called": ["a"], "expected_tools": ["a"]}) + "\n"
    )
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps(CONVERSATION) + "\n")
    store = tmp_path / "runs.db"
    for _ in range(2):
        assert main(["monitor", str(log), "--store", str(store)]) == 0
    buffer = tmp_path / "runs.db.open-sessions.jsonl"
    buffer.write_text(OPEN_SESSION_BUFFER + ', "store": "x"}\n')
    notes = tmp_path / "notes.txt"
    notes.write_text("notes a person wrote\n")
    blob = tmp_path / "weights.bin"
    blob.write_bytes(b"\x00\x01\x02 binary")
    hard = tmp_path / "store-hardlink.out"
    os.link(store, hard)
    sym = tmp_path / "store-symlink.out"
    sym.symlink_to(store)
    return {
        "dataset": dataset,
        "log": log,
        "store": store,
        "buffer": buffer,
        "notes": notes,
        "blob": blob,
        "hard": hard,
        "sym": sym,
    }


def _run_id(store: Path) -> str:
    from tooleval.store import open_store

    handle = open_store(store)
    try:
        return handle.list_runs()[0].id
    finally:
        handle.close()


# command (as a function of the world and the target) -> what it writes
COMMANDS = {
    "score -o": (lambda w, t: ["score", str(w["dataset"]), "--metric", "tool_correctness",
                               "-o", t], "jsonl"),
    "monitor --json": (lambda w, t: ["monitor", str(w["log"]), "--no-store", "--json", t], "json"),
    "monitor --emit": (lambda w, t: ["monitor", str(w["log"]), "--store", str(w["store"]),
                                     "--emit", t, "--emit-passes"], "jsonl"),
    "trace to-case -o": (lambda w, t: ["trace", "to-case", str(w["log"]), "--session", "c1",
                                       "-o", t], "jsonl"),
    "report -o": (lambda w, t: ["report", _run_id(w["store"]), "--store", str(w["store"]),
                                "-o", t], "html"),
    "runs export --junit": (lambda w, t: ["runs", "export", _run_id(w["store"]), "--store",
                                          str(w["store"]), "--junit", t], "xml"),
    "runs export --json": (lambda w, t: ["runs", "export", _run_id(w["store"]), "--store",
                                         str(w["store"]), "--json", t], "json"),
    "runs export --csv": (lambda w, t: ["runs", "export", _run_id(w["store"]), "--store",
                                        str(w["store"]), "--csv", t], "csv"),
    "runs export --summary-md": (lambda w, t: ["runs", "export", _run_id(w["store"]), "--store",
                                               str(w["store"]), "--summary-md", t], "md"),
    "compare --json": (lambda w, t: ["compare", "-1", "latest", "--store", str(w["store"]),
                                     "--json", t], "json"),
    "power --json": (lambda w, t: ["power", _run_id(w["store"]), "--store", str(w["store"]),
                                   "--json", t], "json"),
    "judge labels export -o (csv)": (lambda w, t: ["judge", "labels", "export",
                                                   _run_id(w["store"]), "--store",
                                                   str(w["store"]), "-o", t], "csv"),
    "judge labels export -o (jsonl)": (lambda w, t: ["judge", "labels", "export",
                                                     _run_id(w["store"]), "--store",
                                                     str(w["store"]), "--format", "jsonl",
                                                     "-o", t], "jsonl"),
}  # fmt: skip

# victim -> words of the refusal
VICTIMS = {
    "store": ("SQLite", "run store"),
    "hard": ("SQLite", "run store"),
    "sym": ("SQLite", "run store"),
    "buffer": ("open-session buffer",),
    "blob": ("binary",),
}


@pytest.mark.parametrize("victim", sorted(VICTIMS))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_no_command_writes_over_a_store_a_buffer_or_a_binary_file(world, capsys, command, victim):
    argv, _ = COMMANDS[command]
    target = world[victim]
    before = {name: path.read_bytes() for name, path in world.items()}
    assert main(argv(world, str(target))) == 2
    err = capsys.readouterr().err
    assert any(word in err for word in VICTIMS[victim]), err
    assert "Traceback" not in err
    assert {name: path.read_bytes() for name, path in world.items()} == before


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_no_command_replaces_a_file_of_another_kind(world, capsys, command):
    argv, kind = COMMANDS[command]
    # text where JSON goes, JSON lines where XML/HTML/CSV/Markdown goes
    victim = world["notes"] if kind in ("json", "jsonl", "xml", "html") else world["dataset"]
    if kind in ("xml", "html"):
        victim = world["dataset"]
    before = victim.read_bytes()
    assert main(argv(world, str(victim))) == 2
    err = capsys.readouterr().err
    assert "left alone" in err and "Traceback" not in err
    assert victim.read_bytes() == before


# power needs two scored rows (the world's run has one): its refusals above are what it adds
@pytest.mark.parametrize("command", sorted(set(COMMANDS) - {"power --json"}))
def test_each_command_replaces_its_own_output(world, capsys, command):
    argv, _ = COMMANDS[command]
    target = world["store"].parent / f"out-{command.replace(' ', '_')}"
    assert main(argv(world, str(target))) in (0, 1), capsys.readouterr().err
    assert target.is_file()
    if command != "trace to-case -o":  # to-case appends; the others write anew
        assert main(argv(world, str(target))) in (0, 1), capsys.readouterr().err
        assert target.is_file()


def test_monitor_emit_to_a_store_given_as_a_url_is_refused(world, capsys):
    store = world["store"]
    before = store.read_bytes()
    fresh = store.parent / "new.db"  # a store that does not exist yet, named by a URL
    argv = ["monitor", str(world["log"]), "--store", f"sqlite:///{fresh}", "--emit", str(fresh)]
    assert main(argv) == 2
    assert "run store" in capsys.readouterr().err
    assert not fresh.exists() or fresh.read_bytes()[:6] == b"SQLite"
    assert store.read_bytes() == before


def test_the_python_api_refuses_the_same(world):
    from tooleval import evaluate
    from tooleval.errors import InputError

    result = evaluate(str(world["dataset"]), "tool_correctness")
    for victim in ("store", "hard", "buffer", "notes", "dataset"):
        before = world[victim].read_bytes()
        with pytest.raises(InputError):
            result.write_jsonl(world[victim])
        assert world[victim].read_bytes() == before
    out = world["store"].parent / "api.jsonl"
    result.write_jsonl(out)
    result.write_jsonl(out)  # its own output: replaced
    assert out.read_bytes() == result.to_jsonl()
