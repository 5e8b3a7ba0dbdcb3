"""Regenerate the README screenshots: docs/images/run-page.png and docs/images/row-card.png.

    .venv/bin/python bench/screenshots.py

Seeds a throwaway SQLite store with the test suite's support-agent runs,
serves the viewer with uvicorn on a free 127.0.0.1 port, and photographs the
run page (failures filter) and one row card in Debian's Chromium.
"""

from __future__ import annotations

import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def main() -> int:
    import uvicorn
    from playwright.sync_api import sync_playwright
    from tests.web.seed import seed_support_runs

    from tooleval.store import open_store
    from tooleval.web import create_app

    images = ROOT / "docs" / "images"
    images.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(Path(tmp) / "runs.db")
        baseline, _ = seed_support_runs(store)
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        server = uvicorn.Server(
            uvicorn.Config(create_app(store), host="127.0.0.1", port=port, log_level="warning")
        )
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.05)
        base = f"http://127.0.0.1:{port}"
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
            )
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            page.goto(f"{base}/runs/{baseline}?result=fail")
            page.screenshot(path=str(images / "run-page.png"), full_page=True)
            index = next(r.index for r in store.iter_rows(baseline) if r.row_id == "refund-0")
            page.goto(f"{base}/runs/{baseline}/rows/{index}")
            page.locator("article.row-card").screenshot(path=str(images / "row-card.png"))
            browser.close()
        server.should_exit = True
        thread.join(timeout=5)
        store.close()
    print(f"wrote {images / 'run-page.png'} and {images / 'row-card.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
