"""The viewer's routes through TestClient: pages, filters, pagination, 404s, escaping, headers."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from tests.web.seed import XSS, XSS_IMG, seed_many


class _Collect(HTMLParser):
    """Every tag with its attributes, and every script element's text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script and data.strip():
            self.scripts.append(data)


def parse(text: str) -> _Collect:
    parser = _Collect()
    parser.feed(text)
    return parser


def row_links(text: str) -> list[str]:
    # Links of a filtered view carry the view's query string (for next / previous row).
    return re.findall(r'href="(/runs/[^"/?]+/rows/\d+)(?:\?[^"]*)?"', text)


def test_runs_list_search_and_tag(client, seeded):
    page = client.get("/")
    assert page.status_code == 200
    assert "support-agent baseline" in page.text and "support-agent prompt-fix" in page.text
    found = client.get("/", params={"q": "prompt"})
    assert "support-agent prompt-fix" in found.text and "support-agent baseline" not in found.text
    tagged = client.get("/", params={"tag": "baseline"})
    assert "support-agent baseline" in tagged.text and "prompt-fix</a>" not in tagged.text
    assert "No runs match" in client.get("/", params={"q": "no-such-run"}).text


def test_run_page_shows_header_metrics_categories_and_classes(client, seeded):
    page = client.get(f"/runs/{seeded['a']}")
    assert page.status_code == 200
    text = page.text
    for expected in (
        "support-agent baseline",
        "tool_correctness",
        "tool_call_f1",
        "cancel",
        "refund",
    ):
        assert expected in text
    assert "missing tool" in text and "wrong order" in text
    assert f'src="/runs/{seeded["a"]}/charts/scores.svg?metric=tool_correctness"' in text
    assert len(row_links(text.split('id="rows"')[1])) == 23


def test_filters_by_result_category_metric_and_class(client, seeded, store_counts):
    run = seeded["a"]
    failed = client.get(f"/runs/{run}", params={"result": "fail"}).text.split('id="rows"')[1]
    assert len(row_links(failed)) == store_counts(run, passed=False)
    refunds = client.get(f"/runs/{run}", params={"category": "refund"}).text.split('id="rows"')[1]
    assert len(row_links(refunds)) == 8
    cls = client.get(f"/runs/{run}", params={"failure_class": "missing_tool"}).text
    assert len(row_links(cls.split('id="rows"')[1])) == store_counts(
        run, failure_class="missing_tool"
    )
    by_metric = client.get(
        f"/runs/{run}", params={"metric": "tool_call_f1", "result": "fail", "sort": "score"}
    ).text.split('id="rows"')[1]
    assert len(row_links(by_metric)) == store_counts(run, metric="tool_call_f1", passed=False)


@pytest.fixture
def store_counts(seeded):
    return lambda run, **where: seeded["store"].count_rows(run, **where)


def test_bad_filter_values_get_a_helpful_400(client, seeded):
    run = seeded["a"]
    for params, words in (
        ({"metric": "nope"}, "unknown metric"),
        ({"sort": "sideways"}, "unknown sort"),
        ({"per_page": 7}, "per_page"),
        ({"page": 0}, "start at 1"),
        ({"page": "x"}, "not valid"),
    ):
        response = client.get(f"/runs/{run}", params=params)
        assert response.status_code == 400, params
        assert words in response.text
        assert "<h1>Bad request</h1>" in response.text


def test_unknown_run_row_and_page_are_helpful_404s(client, seeded):
    missing = client.get("/runs/no-such-run")
    assert missing.status_code == 404 and "no run &#x27;no-such-run&#x27;" in missing.text
    assert 'href="/"' in missing.text
    row = client.get(f"/runs/{seeded['a']}/rows/999")
    assert row.status_code == 404 and "has no row 999" in row.text and "23 rows" in row.text
    past = client.get(f"/runs/{seeded['a']}", params={"page": 2})
    assert past.status_code == 404 and "go to the last page" in past.text
    assert client.get("/no/such/page").status_code == 404
    assert client.get("/static/secret.py").status_code == 404


def test_pagination_boundaries_on_a_bigger_run(client, seeded):
    store = seeded["store"]
    run = seed_many(store, 120, name="paged run")
    first = client.get(f"/runs/{run}", params={"per_page": 50}).text
    assert "page 1 of 3" in first and "rows 1–50 of 120" in first
    last = client.get(f"/runs/{run}", params={"per_page": 50, "page": 3, "sort": "index"}).text
    links = row_links(last.split('id="rows"')[1])
    assert "rows 101–120 of 120" in last and len(links) == 20
    assert links[0].endswith("/rows/100") and links[-1].endswith("/rows/119")
    # By default the rows that did not pass come first, then the passes.
    default = client.get(f"/runs/{run}", params={"per_page": 200}).text
    verdicts = re.findall(r'class="badge badge-(\w+)"', default.split('id="rows"')[1])
    assert verdicts.index("pass") == verdicts.count("fail") + verdicts.count("error")
    assert "pass" not in verdicts[: verdicts.index("pass")]
    assert client.get(f"/runs/{run}", params={"per_page": 50, "page": 4}).status_code == 404
    newest = client.get(f"/runs/{run}", params={"sort": "-index", "per_page": 25}).text
    assert row_links(newest.split('id="rows"')[1])[0].endswith("/rows/119")
    store.delete_run(run)


def test_row_page_shows_chips_arguments_and_neighbours(client, seeded):
    run = seeded["b"]
    index = next(r.index for r in seeded["store"].iter_rows(run) if r.row_id == "cancel-4")
    text = client.get(f"/runs/{run}/rows/{index}").text
    assert "Expected tools" in text and "Tools called" in text
    assert "chip chip-args" in text and "Argument mismatches" in text
    assert "&quot;4404&quot;" in text and "&quot;4417&quot;" in text
    assert f'href="/runs/{run}/rows/{index - 1}"' in text
    baseline = seeded["store"]
    missing = next(r.index for r in baseline.iter_rows(seeded["a"]) if r.row_id == "refund-0")
    text = client.get(f"/runs/{seeded['a']}/rows/{missing}").text
    assert "chip chip-missing" in text and "chip chip-extra" in text
    order = next(r.index for r in baseline.iter_rows(seeded["a"]) if r.row_id == "cancel-3")
    assert "chip chip-order" in client.get(f"/runs/{seeded['a']}/rows/{order}").text


def test_compare_page_lists_deltas(client, seeded):
    assert "Compare runs" in client.get("/compare").text
    page = client.get("/compare", params={"a": seeded["a"], "b": seeded["b"]})
    assert page.status_code == 200
    assert "fixed vs regressed per category" in page.text
    assert "regressed" in page.text and "fixed" in page.text
    only = client.get(
        "/compare", params={"a": seeded["a"], "b": seeded["b"], "change": "regressed"}
    ).text
    deltas = only.split('id="deltas"')[1]
    assert "cancel-4" in deltas and "refund-0" not in deltas
    assert client.get("/compare", params={"a": seeded["a"], "b": "nope"}).status_code == 404
    bad = client.get("/compare", params={"a": seeded["a"], "b": seeded["b"], "change": "x"})
    assert bad.status_code == 400


def test_score_chart_is_svg(client, seeded):
    response = client.get(
        f"/runs/{seeded['a']}/charts/scores.svg", params={"metric": "tool_correctness"}
    )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("image/svg+xml")
    assert response.text.startswith("<svg") and "threshold 0.5" in response.text
    bad = client.get(f"/runs/{seeded['a']}/charts/scores.svg", params={"metric": "nope"})
    assert bad.status_code == 400


def test_every_response_has_a_strict_csp(client, seeded):
    for url in ("/", f"/runs/{seeded['a']}", "/static/style.css", "/runs/nope"):
        headers = client.get(url).headers
        csp = headers["content-security-policy"]
        assert "default-src 'self'" in csp and "script-src 'self'" in csp
        assert "unsafe-inline" not in csp
        assert headers["x-content-type-options"] == "nosniff"


def test_user_data_is_escaped_everywhere(client, seeded):
    run = seeded["xss"]
    urls = ["/", f"/runs/{run}", f"/runs/{run}/rows/0", f"/runs/{run}/rows/1"]
    urls.append(f"/runs/{run}?category=" + "%3Cb%3E")
    for url in urls:
        text = client.get(url).text
        parsed = parse(text)
        assert XSS not in text and XSS_IMG not in text, url
        assert not parsed.scripts, url  # no inline script at all
        for tag, attrs in parsed.tags:
            assert tag not in ("img", "iframe") or attrs.get("src", "").startswith("/"), url
            for name, value in attrs.items():
                assert not name.startswith("on"), (url, tag, name)
                assert name != "style", (url, tag)
                if name in ("href", "src", "action"):
                    assert value.startswith(("/", "#")), (url, tag, value)
                    assert "javascript:" not in value.lower()
        assert "&lt;script&gt;window.__xss=1&lt;/script&gt;" in text, url
