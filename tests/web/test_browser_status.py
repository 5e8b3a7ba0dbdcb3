"""In Chromium: the compare kinds score_down / score_up, and whether a "running" run is worked.

A run killed without marking itself stays ``running`` in the store; the viewer
reads its lease and says "stopped" (resumable) unless a live process holds it.
"""

from __future__ import annotations

import pytest
from tests.web.conftest import artifact, served_viewer

pytestmark = pytest.mark.browser

DOWN = "score down (same verdict)"
UP = "score up (same verdict)"


def test_compare_names_score_down_and_filters_to_it(page, viewer_url, seeded):
    a, b = seeded["a"], seeded["b"]
    page.goto(viewer_url + f"/compare?a={a}&b={b}")
    headers = page.locator("table.summary thead th").all_inner_texts()
    assert DOWN in headers and UP in headers
    kinds = page.locator("table.deltas tbody td.change").all_inner_texts()
    assert DOWN in kinds and UP in kinds
    # The change filter offers the kind by its label and keeps it in the URL.
    page.select_option("select[name=change]", label=DOWN)
    with page.expect_navigation():
        page.get_by_role("button", name="filter").click()
    assert "change=score_down" in page.url
    cells = page.locator("table.deltas tbody td.change")
    assert set(cells.all_inner_texts()) == {DOWN}
    rows = page.locator("table.deltas tbody td.rowid").all_inner_texts()
    assert rows == ["cancel-4"]
    # Drawn in the warning colour, not the fail red of "regressed".
    colours = page.evaluate(
        """() => [...document.querySelectorAll('td.change-score_down')]
            .map(td => getComputedStyle(td).color)"""
    )
    regressed = page.evaluate(
        """() => { const td = document.createElement('td'); td.className = 'change-regressed';
            document.body.append(td); return getComputedStyle(td).color; }"""
    )
    assert colours and all(c != regressed for c in colours)


@pytest.fixture
def lease_viewer(tmp_path):
    """A viewer over a store with a live running run, a stopped one and a finished one."""
    from tooleval.store import open_store

    store = open_store(tmp_path / "runs.db")
    live = store.create_run("live run", dataset={}, connector={}, metrics=[])
    lease = store.acquire_lease(live)  # held by this (live) process
    stopped = store.create_run("killed run", dataset={}, connector={}, metrics=[])
    done = store.create_run("done run", dataset={}, connector={}, metrics=[])
    store.finish_run(done)
    with served_viewer(store) as url:
        yield url, {"live": live, "stopped": stopped, "done": done}
    store.release_lease(lease)
    store.close()


def test_runs_list_and_run_page_tell_running_from_stopped(page, lease_viewer):
    import os
    import socket

    url, ids = lease_viewer
    page.goto(url + "/")
    status = {
        name: page.locator("tr", has_text=name).locator("td").nth(2)
        for name in ("live run", "killed run", "done run")
    }
    assert (
        status["live run"].inner_text() == f"running (pid {os.getpid()} on {socket.gethostname()})"
    )
    assert status["killed run"].inner_text().startswith("stopped: no live process")
    assert "--resume" in status["killed run"].inner_text()
    assert status["done run"].inner_text() == "finished"
    assert status["killed run"].get_attribute("class") == "status-stopped"
    assert status["live run"].get_attribute("class") == "status-running"
    page.screenshot(path=artifact("viewer-run-statuses.png"), full_page=True)
    page.goto(url + f"/runs/{ids['stopped']}")
    header = page.locator(".run-header .status")
    assert header.inner_text().startswith("stopped: no live process")
    assert "status-stopped" in header.get_attribute("class")
    page.goto(url + f"/runs/{ids['live']}")
    assert page.locator(".run-header .status").inner_text().startswith("running (pid")
