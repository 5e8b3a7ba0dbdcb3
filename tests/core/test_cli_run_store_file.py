"""A run that stops before recording anything leaves no empty store file behind."""

from __future__ import annotations

import sqlite3

import yaml

from tooleval.cli.main import main


def _plan(tmp_path, *, url: str) -> str:
    (tmp_path / "cases.jsonl").write_text(
        '{"id": "a", "input": "hi", "expected_tools": ["search"]}\n', encoding="utf-8"
    )
    plan = {
        "name": "p",
        "dataset": {"path": str(tmp_path / "cases.jsonl")},
        "connector": {
            "type": "http",
            "url": url,
            "body": {"message": "{{input}}"},
            "response": {"tools_called": "$.tool_calls"},
        },
        "metrics": ["tool_correctness"],
    }
    path = tmp_path / "plan.yaml"
    path.write_text(yaml.safe_dump(plan), encoding="utf-8")
    return str(path)


def test_a_failed_preflight_creates_no_store_file_or_folders(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("TOOLEVAL_UNSET_HOST", raising=False)
    plan = _plan(tmp_path, url="http://${TOOLEVAL_UNSET_HOST}/chat")
    store = tmp_path / "new" / "deeper" / "runs.db"
    assert main(["run", plan, "--store", str(store), "--quiet"]) == 2
    assert "TOOLEVAL_UNSET_HOST" in capsys.readouterr().err
    assert not store.exists()
    assert not (tmp_path / "new").exists()


def test_the_default_store_folder_is_not_left_behind(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TOOLEVAL_STORE", raising=False)
    monkeypatch.delenv("TOOLEVAL_UNSET_HOST", raising=False)
    plan = _plan(tmp_path, url="http://${TOOLEVAL_UNSET_HOST}/chat")
    assert main(["run", plan, "--quiet"]) == 2
    assert not (tmp_path / ".tooleval").exists()


def test_an_existing_store_is_never_removed(tmp_path, monkeypatch):
    monkeypatch.delenv("TOOLEVAL_UNSET_HOST", raising=False)
    store = tmp_path / "runs.db"
    sqlite3.connect(store).close()  # an empty file someone made: not ours to delete
    plan = _plan(tmp_path, url="http://${TOOLEVAL_UNSET_HOST}/chat")
    assert main(["run", plan, "--store", str(store), "--quiet"]) == 2
    assert store.exists()
