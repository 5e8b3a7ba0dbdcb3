"""The run overview's tokens and cost, exact cluster links, the compare pages' intervals and the
state diff of a replayed row, through the viewer's routes (TestClient over a real SQLite store)."""

from __future__ import annotations

import dataclasses
import re
from html import unescape

import pytest
from tests.web.seed import METRICS, seed_cluster_run

from tooleval.model import Diagnosis, Result, Sample
from tooleval.report.state_diff import MAX_PATHS, state_diff_section
from tooleval.store.records import RowRecord
from tooleval.web.usage import NO_PRICE, agent_usage, count_usage


def _text(html: str) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


def _links(html: str, css: str) -> list[str]:
    return [unescape(h) for h in re.findall(rf'<a [^>]*href="([^"]+)"[^>]*class="{css}"', html)]


# ---------------------------------------------------------------- clusters


def _cluster_links(html: str) -> list[tuple[str, int]]:
    """(link, count) of each cluster's count cell."""
    table = html[html.index('class="clusters"') :]
    table = table[: table.index("</table>")]
    return [
        (unescape(href), int(count))
        for href, count in re.findall(r'<td class="num"><a href="([^"]+)">(\d+)</a>', table)
    ]


def _row_indexes(html: str) -> list[int]:
    return [int(i) for i in re.findall(r'<tr id="row-(\d+)"', html)]


def test_a_cluster_links_exactly_its_rows_where_a_search_would_over_match(client, seeded):
    from tooleval.analysis.aggregates import cached_run, run_clusters

    store, run = seeded["store"], seeded["clusters"]
    clusters, _ = run_clusters(store, cached_run(store, run))
    by_detail = {c.detail: c for c in clusters}
    amount = by_detail["wrong issue_refund.amount"]
    # What the text search by class and tool finds: both clusters' rows.
    searched = store.count_rows(run, failure_class="wrong_argument", search="issue_refund")
    assert searched == 5 and amount.count == 3
    page = client.get(f"/runs/{run}").text
    links = _cluster_links(page)
    assert links, "no cluster count links"
    for link, count in links:
        assert "detail=" in link and "q=" not in link
        shown = client.get(link.replace("#rows", "") + "&per_page=200").text
        assert len(_row_indexes(shown)) == count, link
    link = next(link for link, _ in links if "amount" in link)
    shown = client.get(link.split("#")[0]).text
    assert sorted(_row_indexes(shown)) == sorted(amount.indexes)
    # The filter is a chip with a link that removes it (and keeps the rest of the view).
    chips = shown[shown.index('class="filter-chips"') :]
    assert "wrong issue_refund.amount" in _text(chips[: chips.index("</ul>")])
    removes = _links(shown, "chip-remove")
    cluster_off = next(r for r in removes if "failure_class=" in r and "detail=" not in r)
    assert len(_row_indexes(client.get(cluster_off.split("#")[0]).text)) == 5
    # The filter form keeps the cluster when another filter is applied.
    assert 'name="detail" value="wrong issue_refund.amount"' in unescape(shown)


def test_prev_next_breadcrumb_and_export_keep_the_cluster(client, seeded):
    store, run = seeded["store"], seeded["clusters"]
    detail = "wrong issue_refund.order_id"
    base = f"/runs/{run}?failure_class=wrong_argument&detail={detail}"
    page = client.get(base).text
    rows = _row_indexes(page)
    assert len(rows) == 2
    row_link = unescape(re.search(rf'href="(/runs/{run}/rows/{rows[0]}\?[^"]+)"', page).group(1))
    assert "detail=" in row_link
    row_page = client.get(row_link).text
    assert "row 1 of 2 in this view" in _text(row_page)
    following = unescape(re.search(r'href="([^"]+)"[^>]*id="row-next"', row_page).group(1))
    assert "detail=" in following and f"/rows/{rows[1]}" in following
    back = unescape(re.search(r'href="([^"]+)"[^>]*id="row-up"', row_page).group(1))
    assert "detail=" in back
    last = client.get(following).text
    assert "row 2 of 2 in this view" in _text(last) and 'id="row-next"' not in last
    exported = client.get(f"/runs/{run}/export.jsonl?failure_class=wrong_argument&detail={detail}")
    assert len(exported.text.strip().splitlines()) == 2
    assert store.count_rows(run, failure_detail=detail) == 2


def test_rows_stored_without_their_cluster_key_fall_back_to_the_search_and_say_so(tmp_path):
    from fastapi.testclient import TestClient

    from tooleval.store import open_store
    from tooleval.web import create_app

    store = open_store(tmp_path / "runs.db")
    source = seed_cluster_run(store)
    old = store.create_run("older rows", dataset={}, connector={}, metrics=METRICS)
    rows = [
        dataclasses.replace(r, run_id=old, failure_detail=None) for r in store.iter_rows(source)
    ]
    store.add_rows(old, rows)
    store.finish_run(old)
    with TestClient(create_app(store), base_url="http://127.0.0.1:8765") as client:
        page = client.get(f"/runs/{old}").text
    assert "stored without their cluster key" in _text(page)
    assert all("detail=" not in link for link, _ in _cluster_links(page))
    store.close()


# ---------------------------------------------------------------- tokens and cost


def test_the_overview_counts_agent_and_judge_tokens_and_says_no_price(client, seeded):
    page = client.get(f"/runs/{seeded['usage']}").text
    section = _text(
        page[page.index('class="usage"') : page.index("</section>", page.index('class="usage"'))]
    )
    # Agent: 1000..1002 + 30 prompt tokens, 3 x 50 + 3 completion tokens; judge 4 x 200 / 4 x 20.
    assert "agent 4 rows 3,033 153" in section
    assert "judge 4 calls (2 from the cache) 800 80" in section
    assert section.count(NO_PRICE) == 2
    listing = _text(client.get("/").text)
    assert "3,186 agent tokens · 880 judge tokens" in listing


def test_rows_without_usage_are_not_counted_as_zero_tokens(client, seeded):
    page = _text(client.get(f"/runs/{seeded['a']}").text)
    assert "not recorded: no row's response carries token usage" in page
    assert "no judged metric ran" in page


def test_a_monitored_session_shows_its_model_tokens(client, seeded):
    # The monitor stores each session's usage (summed from its model spans) with the row.
    page = _text(client.get(f"/runs/{seeded['traces']}").text)
    assert "agent 1 rows 380 27" in page


def test_rows_with_a_recorded_cost_show_it_and_the_others_say_no_price(tmp_path):
    from fastapi.testclient import TestClient

    from tooleval.store import open_store
    from tooleval.web import create_app

    # As `tooleval monitor serve --prices` stores a released session: usage with its cost.
    store = open_store(tmp_path / "runs.db")
    run = store.create_run("live sessions", dataset={}, connector={}, metrics=[])
    usage = [
        {"llm_calls": 2, "input_tokens": 380, "output_tokens": 27, "cost": 0.00122},
        {"llm_calls": 1, "input_tokens": 100, "output_tokens": 10, "cost": 0.0004},
        {"llm_calls": 1, "input_tokens": 50, "output_tokens": 5},
    ]
    store.add_rows(
        run,
        [
            RowRecord(run, i, f"s{i}", Sample(metadata={"usage": u}), ())
            for i, u in enumerate(usage)
        ],
    )
    store.finish_run(run)
    with TestClient(create_app(store), base_url="http://127.0.0.1:8765") as client:
        page = _text(client.get(f"/runs/{run}").text)
    assert "agent 3 rows 530 42 0.0016 (as recorded with the rows), for 2 of 3 rows" in page
    store.close()


@pytest.mark.parametrize(
    "raw",
    [
        {"usage": {"prompt_tokens": "lots", "completion_tokens": None}},
        {"usage": {"prompt_tokens": True}},
        {"usage": {"prompt_tokens": -5, "completion_tokens": float("nan")}},
        {"usage": "12 tokens"},
        {"turns": "not a list"},
        b"\x00\xff binary",
        None,
        [1, 2, 3],
    ],
)
def test_garbage_usage_is_not_recorded_usage(raw):
    row = RowRecord("r", 0, "q", Sample(), raw_response=raw)
    assert agent_usage(row) is None
    assert count_usage([row]).agent_tokens == (0, 0)


def test_a_monitor_rows_recorded_usage_wins_over_the_raw_response():
    row = RowRecord(
        "r",
        0,
        "q",
        Sample(metadata={"usage": {"input_tokens": 7, "output_tokens": 2, "cost": 0.5}}),
        raw_response={"usage": {"prompt_tokens": 1000, "completion_tokens": 1}},
    )
    assert agent_usage(row) == (7, 2, 0.5)


def test_a_stopped_runs_usage_is_counted_once_and_kept(client, seeded):
    store, run = seeded["store"], seeded["usage"]
    client.get(f"/runs/{run}")
    assert store.aggregates.load_aggregate(run, "viewer-usage/1", row_count=4) is not None


# ---------------------------------------------------------------- intervals on compare


def test_compare_shows_each_runs_interval_and_the_paired_delta_from_the_library(client, seeded):
    from tooleval.analysis.figures import run_figures
    from tooleval.analysis.noise import compare_stats

    store, a, b = seeded["store"], seeded["a"], seeded["b"]
    page = client.get(f"/compare?a={a}&b={b}").text
    assert 'id="intervals"' in page
    table = page[
        page.index('class="intervals"') : page.index("</table>", page.index('class="intervals"'))
    ]
    text = _text(table)
    for c in compare_stats(store, a, b):
        from tooleval.analysis.stat_lines import pts

        i = c.stats.interval
        assert f"Δ {pts(c.stats.delta)} pts [{pts(i.low)}, {pts(i.high)}]" in text
        assert c.verdict.label in text
    # the run's read model: error rows count as not passed, as on every surface
    f = run_figures(store, store.get_run(a)).get("tool_call_f1")
    assert f is not None and f.pass_rate is not None
    w = f.pass_rate.interval
    assert f"[{100 * w.low:.1f}, {100 * w.high:.1f}]" in text
    assert table.count('class="delta-bar"') >= 2 and 'aria-label="Δ' in table
    # Kept for two stopped runs: a second view reads it back.
    stored = store.aggregates.load_aggregate(b, f"compare/3/{a}", row_count=None)
    assert stored and stored["statistics"]


def test_the_matrix_shows_each_runs_rates_with_intervals(client, seeded):
    a, b, c = seeded["a"], seeded["b"], seeded["clusters"]
    page = client.get(f"/compare?run={a}&run={b}&run={c}").text
    table = page[page.index('class="intervals"') :]
    table = table[: table.index("</table>")]
    assert table.count('class="ci-bar"') >= 6
    assert "refund" in _text(table)  # per category too


# ---------------------------------------------------------------- state diff


def _state_result(differences, divergence=None, **extra) -> Result:
    details = {"differences": differences, **extra}
    if divergence is not None:
        details["first_divergence"] = divergence
    return Result.scored("state_match", 0.0, reason="", diagnosis=Diagnosis(details=details))


def test_the_state_diff_is_escaped_and_huge_values_are_cut():
    result = _state_result(
        [
            {
                "path": "orders.<script>x</script>",
                "expected": "<img onerror=1>",
                "actual": "<absent>",
            },
            {"path": "blob", "expected": {"k": "v" * 50_000}, "actual": [1] * 10_000},
            "not the recorded shape <b>",
        ],
        {"index": 2, "expected": "cancel_order(order_id='<W1>')", "actual": None},
    )
    html = str(state_diff_section(result))
    assert "<script>" not in html and "<img" not in html and "<b>" not in html
    assert "&lt;script&gt;" in html and "not the recorded shape &lt;b&gt;" in html
    assert "call 3" in html and "no call (this side made fewer calls)" in html
    assert "(cut: 50," in html and len(html) < 20_000
    assert '<em class="absent">absent</em>' in html


def test_a_state_diff_of_many_paths_lists_the_first_ones_and_says_how_many():
    result = _state_result([{"path": f"p{i}", "expected": i, "actual": -i} for i in range(250)])
    html = str(state_diff_section(result))
    assert f"250 paths differ; the first {MAX_PATHS} are listed" in _text(html)
    assert html.count("<tr>") == MAX_PATHS + 1


def test_results_without_a_state_diff_get_none():
    assert state_diff_section(Result.scored("tool_call_f1", 1.0, reason="")) is None
    agreeing = state_diff_section(_state_result([]))
    assert "The end states agree" in str(agreeing)


def test_the_row_card_of_a_real_orders_env_run_shows_its_state_diff(client, seeded):
    store, run = seeded["store"], seeded["orders"]
    failed = next(r for r in store.iter_rows(run) if r.result("state_match").passed is False)
    details = failed.result("state_match").diagnosis.details
    page = client.get(f"/runs/{run}/rows/{failed.index}").text
    block = page[page.index('class="state-diff-block"') :]
    text = _text(block[: block.index("</section>")])
    for d in details["differences"]:
        assert d["path"] in text and str(d["expected"]) in text and str(d["actual"]) in text
    first = details["first_divergence"]
    assert f"First diverging call: call {first['index'] + 1}" in text
    assert first["expected"] in text
    passed = next(r for r in store.iter_rows(run) if r.result("state_match").passed)
    assert "The end states agree" in _text(client.get(f"/runs/{run}/rows/{passed.index}").text)


def test_every_rate_per_category_and_metric_on_the_overview_has_an_interval(client, seeded):
    from tooleval.analysis.aggregates import cached_run, run_counts

    store, run = seeded["store"], seeded["a"]
    categories = run_counts(store, cached_run(store, run)).categories
    page = client.get(f"/runs/{run}").text
    start = page.index("<h2>Per category</h2>")
    table = page[start : page.index("</table>", start)]
    metrics = len(cached_run(store, run).summaries)
    # The row pass rate and each metric's pass rate, in every category.
    assert table.count('class="ci-bar"') == len(categories) * (1 + metrics)


def test_runs_too_big_to_read_on_a_view_say_what_is_not_computed(tmp_path, monkeypatch):
    from fastapi.testclient import TestClient
    from tests.web.seed import seed_support_runs

    import tooleval.report.compare as intervals
    import tooleval.web.usage as usage
    from tooleval.store import open_store
    from tooleval.web import create_app

    store = open_store(tmp_path / "runs.db")
    a, b = seed_support_runs(store)
    monkeypatch.setattr(usage, "VIEW_LIMIT", 10)
    monkeypatch.setattr(intervals, "PAIRED_VIEW_LIMIT", 10)
    with TestClient(create_app(store), base_url="http://127.0.0.1:8765") as client:
        overview = _text(client.get(f"/runs/{a}").text)
        compared = client.get(f"/compare?a={a}&b={b}").text
    assert (
        "Not counted: the viewer reads every row to count tokens, and stops at 10 rows" in overview
    )
    assert "so it is not computed here: `tooleval compare A B` prints it" in _text(compared)
    assert 'class="delta-bar"' not in compared and compared.count('class="ci-bar"') >= 4
    assert store.aggregates.load_aggregate(a, "viewer-usage/1", row_count=None) is None
    store.close()


def test_the_static_reports_carry_the_state_diff_of_each_card(seeded):
    """`tooleval report` and `report --compare` show a replayed row's state diff, as the viewer."""
    from tooleval.report import build_report

    store, run = seeded["store"], seeded["orders"]
    failed = next(r for r in store.iter_rows(run) if r.result("state_match").passed is False)
    details = failed.result("state_match").diagnosis.details
    for html in (build_report(store, run), build_report(store, run, compare_with=seeded["a"])):
        card = html[html.index(f'id="row-{failed.index}"') :]
        block = card[card.index('class="state-diff-block"') :]
        text = _text(block[: block.index("</section>")])
        for d in details["differences"]:
            assert d["path"] in text and str(d["expected"]) in text and str(d["actual"]) in text
        assert f"call {details['first_divergence']['index'] + 1}" in text
    # A row without an environment has no state diff section.
    plain = build_report(store, seeded["a"])
    assert 'class="state-diff-block"' not in plain
