"""Reading a run through the viewer's routes: host check, error pages, views that keep their
filters, why a row failed, search in calls, exports, side-by-side compare, stored aggregates."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from tests.web.seed import BIDI, LONG_NAME

from tooleval.web.app import CSP


def rows_part(text: str) -> str:
    return text.split('id="rows"')[1]


def row_hrefs(text: str) -> list[str]:
    return [
        h.replace("&amp;", "&") for h in re.findall(r'href="(/runs/[^"/?]+/rows/\d+[^"]*)"', text)
    ]


# ---------------------------------------------------------------- host and error pages


@pytest.mark.parametrize(
    "host", ["evil.example:8765", "evil.example", "127.0.0.1.evil.example", ""]
)
def test_foreign_host_headers_are_refused(client, host):
    response = client.get("/", headers={"host": host})
    assert response.status_code == 400
    assert "answers only to" in response.text
    assert response.headers["content-security-policy"] == CSP


@pytest.mark.parametrize("host", ["127.0.0.1:8765", "localhost:8765", "[::1]:8765", "LOCALHOST"])
def test_own_host_names_are_served(client, host):
    assert client.get("/", headers={"host": host}).status_code == 200


def test_the_listen_address_is_accepted_too(seeded):
    from fastapi.testclient import TestClient

    from tooleval.web import create_app

    app = create_app(seeded["store"], host="192.168.1.20")
    with TestClient(app, base_url="http://192.168.1.20:8765") as lan:
        assert lan.get("/").status_code == 200
        assert lan.get("/", headers={"host": "evil.example"}).status_code == 400


@pytest.mark.parametrize("index", ["9" * 40, "9223372036854775808", "-1", "-99999999999999999999"])
def test_huge_and_negative_row_numbers_are_a_404_with_headers(client, seeded, index):
    response = client.get(f"/runs/{seeded['a']}/rows/{index}")
    assert response.status_code == 404, index
    assert "No such row" in response.text
    assert response.headers["content-security-policy"] == CSP
    assert response.headers["x-frame-options"] == "DENY"


def test_huge_page_and_pos_values_are_clean_errors(client, seeded):
    run = seeded["a"]
    assert client.get(f"/runs/{run}", params={"page": "9" * 30}).status_code == 404
    response = client.get(f"/runs/{run}/rows/0", params={"pos": "-4", "result": "fail"})
    assert response.status_code == 400 and "pos" in response.text
    huge = client.get(f"/runs/{run}/rows/0", params={"pos": "9" * 30, "result": "fail"})
    assert huge.status_code == 400 and huge.headers["content-security-policy"] == CSP
    response = client.get("/compare/row", params={"a": run, "b": run, "ia": "9" * 30})
    assert response.status_code == 404
    assert response.headers["content-security-policy"] == CSP


def test_an_unexpected_failure_is_a_500_page_with_headers(seeded):
    from fastapi.testclient import TestClient

    from tooleval.web import create_app

    class Broken:
        @property
        def aggregates(self):
            raise RuntimeError("disk on fire")

        def list_runs(self, **_):
            raise RuntimeError("disk on fire")

    with TestClient(
        create_app(Broken()), base_url="http://127.0.0.1", raise_server_exceptions=False
    ) as broken:
        response = broken.get("/")
    assert response.status_code == 500
    assert "RuntimeError" in response.text and "disk on fire" not in response.text
    assert response.headers["content-security-policy"] == CSP


def test_bidi_and_control_characters_show_visibly(client, seeded):
    run = seeded["names"]
    text = client.get(f"/runs/{run}").text + client.get(f"/runs/{run}/rows/3").text
    assert "\u202e" not in text
    assert "refund⟨U+202E⟩gnp.exe" in text


def test_look_alike_and_hidden_names_are_marked(client, seeded):
    run = seeded["names"]
    lookalike = client.get(f"/runs/{run}/rows/1").text
    assert "⚠ look-alike" in lookalike and "mixed scripts: Cyrillic, Latin" in lookalike
    hidden = client.get(f"/runs/{run}/rows/2").text
    assert "lookup⟨U+200B⟩_order" in hidden and "invisible characters: U+200B" in hidden
    table = rows_part(client.get(f"/runs/{run}").text)
    assert table.count("chip-lookalike") >= 2


def test_a_very_long_name_is_cut_with_the_full_text_on_hover(client, seeded):
    text = client.get(f"/runs/{seeded['names']}/rows/0").text
    assert "refund_" + "x" * 52 + "…" in text
    assert f'title="{LONG_NAME}' in text  # the whole name is in the chip's title


# ---------------------------------------------------------------- views keep their filters


def test_filter_form_and_pager_land_on_the_rows(client, seeded):
    text = client.get(f"/runs/{seeded['a']}", params={"result": "fail"}).text
    assert f'action="/runs/{seeded["a"]}#rows"' in text
    assert 'id="permalink"' in text and "result=fail" in text.split('id="permalink"')[0][-200:]


def test_score_order_without_a_metric_uses_the_first_metric(client, seeded):
    response = client.get(f"/runs/{seeded['a']}", params={"sort": "score"})
    assert response.status_code == 200
    assert "ordered by tool_correctness" in response.text
    scores = [
        float(s)
        for s in re.findall(r'<td class="num score-\w*">([\d.]+)</td>', rows_part(response.text))
    ][::2]
    assert scores == sorted(scores)


def test_next_row_walks_the_filtered_view_and_the_breadcrumb_keeps_it(client, seeded):
    store, run = seeded["store"], seeded["a"]
    failing = [r.index for r in store.iter_rows(run, passed=False)]
    page = client.get(f"/runs/{run}", params={"result": "fail"}).text
    first = row_hrefs(rows_part(page))[0]
    assert "result=fail" in first and "pos=0" in first
    seen = []
    url = first
    while url:
        text = client.get(url).text
        seen.append(int(re.search(r"/rows/(\d+)", url)[1]))
        back = re.search(r'<a href="([^"]+)" id="row-up"', text)[1].replace("&amp;", "&")
        assert "result=fail" in back and f"#row-{seen[-1]}" in back
        following = re.search(r'<a href="([^"]+)" rel="next" id="row-next"', text)
        url = following[1].replace("&amp;", "&") if following else None
    assert seen == failing


def test_search_reaches_tool_names_and_argument_values(client, seeded):
    run = seeded["a"]
    by_value = rows_part(client.get(f"/runs/{run}", params={"q": "5506"}).text)
    assert "refund-6" in by_value
    by_tool = rows_part(client.get(f"/runs/{run}", params={"q": "search_orders"}).text)
    ids = set(re.findall(r">(refund-\d)</a>", by_tool))
    assert ids == {f"refund-{n}" for n in range(5)}


def test_rows_table_says_why_a_row_failed(client, seeded):
    table = rows_part(client.get(f"/runs/{seeded['a']}", params={"result": "fail"}).text)
    assert "why it did not pass" in table
    assert "missing tool" in table and "tool_correctness:" in table
    assert "HTTP 504 from the agent" in client.get(f"/runs/{seeded['a']}").text
    assert 'class="chip-glyph"' in table and "(missing)" in table


# ---------------------------------------------------------------- exports


def test_csv_export_holds_the_filtered_rows(client, seeded):
    store, run = seeded["store"], seeded["a"]
    response = client.get(
        f"/runs/{run}/export.csv", params={"category": "refund", "result": "fail"}
    )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    assert "attachment" in response.headers["content-disposition"]
    rows = list(csv.DictReader(io.StringIO(response.text)))
    expected = [r.row_id for r in store.iter_rows(run, category="refund", passed=False)]
    assert [r["row_id"] for r in rows] == expected and expected
    assert rows[0]["verdict"] == "fail" and rows[0]["tool_correctness.reason"]


def test_csv_export_carries_the_arguments_of_each_call(client, seeded):
    # Row refund-4 of run b called cancel_order with the wrong order id: same names, other args.
    store, run = seeded["store"], seeded["b"]
    rows = {
        r["row_id"]: r
        for r in csv.DictReader(io.StringIO(client.get(f"/runs/{run}/export.csv").text))
    }
    wrong = next(r for r in store.iter_rows(run) if r.failure_class == "wrong_argument")
    row = rows[wrong.row_id]
    assert row["tools_called"] == row["expected_tools"]
    expected, called = json.loads(row["expected_calls"]), json.loads(row["calls"])
    assert [c["name"] for c in expected] == [c["name"] for c in called]
    assert expected != called
    assert called == [{"name": c.name, "args": c.args} for c in wrong.sample.actual_calls()]


def test_jsonl_export_and_formula_cells(client, seeded):
    run = seeded["xss"]
    lines = client.get(f"/runs/{run}/export.jsonl").text.splitlines()
    assert [json.loads(line)["index"] for line in lines] == [0, 1]
    names = client.get(f"/runs/{seeded['names']}/export.csv").text
    assert BIDI in names  # exports keep the data as it is; only pages show it visibly
    bad = client.get(f"/runs/{run}/export.xlsx")
    assert bad.status_code == 404


# ---------------------------------------------------------------- compare


def test_compare_lists_calls_of_both_sides_and_opens_a_row_side_by_side(client, seeded):
    a, b = seeded["a"], seeded["b"]
    text = client.get("/compare", params={"a": a, "b": b, "change": "regressed"}).text
    deltas = text.split('id="deltas"')[1]
    assert "regressed only" in text and "cancel-4" in deltas
    assert "arg-diff" in deltas  # order_id 4404 vs 4417 highlighted
    link = re.search(r'href="(/compare/row\?[^"]+)"', deltas)[1].replace("&amp;", "&")
    side = client.get(link).text
    assert "A vs B" in side and "<h1>" in side
    assert "&quot;4404&quot;" in side and "&quot;4417&quot;" in side
    assert side.count('class="arg-diff"') >= 2 and 'class="differs"' in side


def test_heading_order_has_no_gaps(client, seeded):
    a, b = seeded["a"], seeded["b"]
    store = seeded["store"]
    index = next(r.index for r in store.iter_rows(b) if r.row_id == "cancel-4")
    for url in (
        "/",
        f"/runs/{a}",
        f"/runs/{b}/rows/{index}",
        f"/compare?a={a}&b={b}",
        f"/compare/row?a={a}&b={b}&ia={index}&ib={index}",
        "/runs/nope",
    ):
        levels = [int(n) for n in re.findall(r"<h([1-6])[ >]", client.get(url).text)]
        assert levels and levels[0] == 1, url
        assert all(b - a <= 1 for a, b in zip(levels, levels[1:], strict=False)), (url, levels)


# ---------------------------------------------------------------- stored aggregates


def test_a_finished_runs_aggregates_are_stored_on_first_view(client, seeded):
    store, run = seeded["store"], seeded["a"]
    client.get(f"/runs/{run}")
    info = store.get_run(run)
    stored = store.aggregates.load_aggregate(run, "counts/1", row_count=info.row_count)
    assert stored and {b["metric"] for b in stored["bins"]} == set(info.summaries)
    client.get("/compare", params={"a": seeded["a"], "b": seeded["b"]})
    rows_b = store.get_run(seeded["b"]).row_count
    assert (
        store.aggregates.load_aggregate(seeded["b"], f"compare/3/{run}", row_count=rows_b)
        is not None
    )
