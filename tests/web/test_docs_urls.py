"""Every viewer URL docs/viewer.md gives is answered by a seeded viewer (none is a 400 page)."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "viewer.md"
# The one URL the page documents as an example of a 404 (a row number of any size).
NOT_FOUND = {"/rows/99999999999999999999"}


def _documented() -> tuple[list[str], list[str]]:
    text = DOC.read_text(encoding="utf-8")
    paths = sorted(set(re.findall(r"`(/[^`\s]*)`", text)))
    params = sorted(set(re.findall(r"`([a-z_]+=[^`]+)`", text)))
    return paths, params


def _concrete(path: str, seeded: dict) -> str:
    a, b, c = seeded["a"], seeded["b"], seeded["chats"]
    path = path.replace("{id}", a).replace("{index}", "0")
    path = path.replace("run=A&run=B&run=C", f"run={a}&run={b}&run={c}")
    path = path.replace("a=RUN&b=RUN", f"a={a}&b={b}").replace("ia=I&ib=J", "ia=0&ib=0")
    path = path.replace("/runs/20261201-19", f"/runs/{a[:-1]}")  # a unique prefix
    return path.replace("/runs/-2/rows/5", "/runs/-2/rows/0")


def test_the_docs_give_urls_and_query_examples():
    paths, params = _documented()
    assert len(paths) >= 10 and len(params) >= 4
    assert "result=fail" in params and "result=failed" not in params


def test_every_documented_url_is_answered(client, seeded):
    paths, _ = _documented()
    for documented in paths:
        url = documented if documented in NOT_FOUND else _concrete(documented, seeded)
        if documented in NOT_FOUND:
            url = f"/runs/{seeded['a']}{documented}"
        response = client.get(url)
        wanted = 404 if documented in NOT_FOUND else 200
        assert response.status_code == wanted, (documented, url, response.status_code)


def test_every_documented_filter_is_answered_on_a_run_page(client, seeded):
    _, params = _documented()
    pages = {"change": f"/compare?a={seeded['a']}&b={seeded['b']}"}
    for param in params:
        key, value = param.split("=", 1)
        base = pages.get(key, f"/runs/{seeded['clusters']}")
        joiner = "&" if "?" in base else "?"
        response = client.get(base + joiner + key + "=" + value)
        assert response.status_code == 200, (param, response.status_code)
