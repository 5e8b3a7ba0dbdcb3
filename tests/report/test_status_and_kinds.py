"""The static report: score_down / score_up rows and a running run's lease status."""

from __future__ import annotations

import os
import socket

import pytest
from tests.web.seed import seed_support_runs

from tooleval.report import build_report


@pytest.fixture
def store(tmp_path):
    from tooleval.store import open_store

    opened = open_store(tmp_path / "runs.db")
    yield opened
    opened.close()


def test_comparison_report_lists_score_down_rows_with_their_label(store):
    a, b = seed_support_runs(store)
    text = build_report(store, b, compare_with=a)
    # cancel-4: tool_correctness still on the same side of its threshold, but lower.
    assert "Score down, same verdict (1)" in text
    assert '<td class="change change-score_down">score down (same verdict)</td>' in text
    assert "tool_correctness score down (same verdict)" in text  # the tag on its card
    # The per-metric table counts both kinds under their labels.
    assert '<th class="num">score up (same verdict)</th>' in text
    assert "score_down</td>" not in text  # no raw kind names in cells


def test_report_says_whether_a_running_run_is_worked(store):
    live = store.create_run("live", dataset={}, connector={}, metrics=[])
    lease = store.acquire_lease(live)
    killed = store.create_run("killed", dataset={}, connector={}, metrics=[])
    try:
        text = build_report(store, live)
        assert f"running (pid {os.getpid()} on {socket.gethostname()})" in text
        assert "status status-running" in text
        text = build_report(store, killed)
        assert "status status-stopped" in text
        assert "stopped: no live process (resume it with tooleval run PLAN --resume ID)" in text
    finally:
        store.release_lease(lease)
    # Released (the process ended its work): the same run now reads as stopped.
    assert "status status-stopped" in build_report(store, live)
