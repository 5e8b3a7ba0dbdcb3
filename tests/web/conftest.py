"""Viewer fixtures: a SQLite store seeded through the write API, a real uvicorn on 127.0.0.1."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.web.seed import (
    seed_cluster_run,
    seed_monitor_run,
    seed_names_run,
    seed_orders_run,
    seed_support_runs,
    seed_transcript_run,
    seed_usage_run,
    seed_xss_run,
)

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture(scope="session")
def seeded(tmp_path_factory) -> Iterator[dict]:
    """A store with a baseline run, a new run, a run full of script injections and odd names."""
    from tooleval.store import open_store

    folder = tmp_path_factory.mktemp("viewer")
    store = open_store(folder / "runs.db")
    a, b = seed_support_runs(store)
    xss = seed_xss_run(store)
    names = seed_names_run(store)
    chats = seed_transcript_run(store)
    traces = seed_monitor_run(store, folder)
    clusters = seed_cluster_run(store)
    usage = seed_usage_run(store)
    orders = seed_orders_run(store, folder / "runs.db")
    yield {
        "store": store,
        "a": a,
        "b": b,
        "xss": xss,
        "names": names,
        "chats": chats,
        "traces": traces,
        "clusters": clusters,
        "usage": usage,
        "orders": orders,
    }
    store.close()


@pytest.fixture(scope="session")
def client(seeded):
    from fastapi.testclient import TestClient

    from tooleval.web import create_app

    # The viewer answers only to its own host names (DNS rebinding guard).
    with TestClient(create_app(seeded["store"]), base_url="http://127.0.0.1:8765") as test_client:
        yield test_client


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def served_viewer(store, **options) -> Iterator[str]:
    """The viewer over ``store`` (``options`` to ``create_app``), by a real uvicorn on 127.0.0.1."""
    import uvicorn

    from tooleval.web import create_app

    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(store, **options), host="127.0.0.1", port=port, log_level="warning"
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the viewer did not start on 127.0.0.1")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=5)


@pytest.fixture(scope="session")
def viewer_url(seeded) -> Iterator[str]:
    """The viewer served by a real uvicorn on a free 127.0.0.1 port (background thread)."""
    with served_viewer(seeded["store"]) as url:
        yield url


# Module scope: Playwright's sync API marks its event loop as this thread's running loop
# while it is open, which would break the asyncio tests of modules run after the browser
# ones; a launch per module (about a second) keeps private asyncio calls out of the suite.
@pytest.fixture(scope="module")
def browser():
    """A Chromium for this module's tests; each test opens contexts of its own."""
    if not CHROMIUM.exists():
        pytest.skip("browser tests need Debian's chromium at /usr/bin/chromium (make system-deps)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser):
    """A fresh page that records dialogs (alert/confirm) and console errors."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    opened.dialogs = []
    opened.csp_errors = []

    def on_dialog(dialog) -> None:
        opened.dialogs.append(dialog.message)
        dialog.dismiss()

    opened.on("dialog", on_dialog)
    opened.on(
        "console",
        lambda msg: (
            opened.csp_errors.append(msg.text) if "Content Security Policy" in msg.text else None
        ),
    )
    yield opened
    context.close()


def artifact(name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS / name
