"""The static report: self-contained, well-formed, escaped, capped; the report CLI."""

from __future__ import annotations

import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from tests.web.seed import XSS, XSS_IMG, seed_many, seed_support_runs, seed_xss_run

from tooleval.cli.main import main
from tooleval.report import build_report, write_report

VOID = {"meta", "link", "img", "input", "br", "hr", "col", "wbr"}
# SVG children that may be self-closed are never emitted self-closed here, so every tag balances.


class _Checker(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.attrs: list[tuple[str, str, str]] = []
        self.scripts = 0
        self.ids: list[str] = []
        self.styles: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            self.attrs.append((tag, name, value or ""))
            if name == "id":
                self.ids.append(value)
        if tag == "script":
            self.scripts += 1
        self._in_style = tag == "style"
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        self._in_style = False
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:]}")
            return
        self.stack.pop()

    def handle_data(self, data):
        if self._in_style:
            self.styles.append(data)


def check(text: str) -> _Checker:
    checker = _Checker()
    checker.feed(text)
    checker.close()
    assert text.startswith("<!DOCTYPE html>")
    assert not checker.errors, checker.errors[:5]
    assert not checker.stack, checker.stack
    assert checker.scripts == 0
    for tag, name, value in checker.attrs:
        assert not name.startswith("on") and name != "style", (tag, name)
        if name in ("href", "src", "action"):
            assert value.startswith("#"), (tag, name, value)
    css = "".join(checker.styles)
    assert "@import" not in css and not re.search(r"url\(\s*['\"]?(https?:)?//", css)
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", text)
    assert len(checker.ids) == len(set(checker.ids)), "duplicate ids"
    return checker


@pytest.fixture
def store(tmp_path):
    from tooleval.store import open_store

    opened = open_store(tmp_path / "runs.db")
    yield opened
    opened.close()


def test_report_is_self_contained_and_complete(store, tmp_path):
    a, b = seed_support_runs(store)
    text = build_report(store, a)
    check(text)
    for expected in (
        "support-agent baseline",
        "examples/support_agent.jsonl",
        "check_ordering=true",
        "Per category",
        "pass rate per category",
        "Failure clusters",
        "Expected tools",
        "Tools called",
        "chip chip-missing",
        "chip chip-extra",
        "chip chip-order",
        "Argument mismatches",
        "Connector error",
        "HTTP 504 from the agent",
        "score distribution of tool_correctness",
    ):
        assert expected in text, expected
    # The clusters name the bugs: refund rows calling search_orders instead of issue_refund.
    assert "called search_orders instead of issue_refund" in text
    assert 'href="#row-' in text and 'id="row-0"' in text


def test_comparison_report_shows_fixed_and_regressed(store, tmp_path):
    a, b = seed_support_runs(store)
    text = build_report(store, b, compare_with=a)
    check(text)
    assert "Comparison with the baseline" in text
    assert "fixed vs regressed per category" in text
    assert "Regressed (1)" in text and "tool_call_f1 regressed" in text
    with pytest.raises(Exception, match="not with itself"):
        build_report(store, b, compare_with=b)


def test_row_cards_are_capped_failures_first(store):
    run = seed_many(store, 60, name="capped")
    failing = store.count_rows(run, passed=False) + store.count_rows(run, failure_class="error")
    text = build_report(store, run, max_rows=5)
    checker = check(text)
    cards = [i for i in checker.ids if i.startswith("row-")]
    assert len(cards) == 5
    assert "5 of 60 rows shown, failures first (examples of every failure cluster" in text
    assert "55 left out" in text
    shown = [int(i.removeprefix("row-")) for i in cards]
    assert all(store.get_row(run, i).passed is not True for i in shown)
    assert failing > 5
    assert "left out" not in build_report(store, run, max_rows=60)


def test_a_big_run_report_is_bounded_and_samples_every_cluster(store):
    from tooleval.analysis.aggregates import cached_run, run_clusters

    run = seed_many(store, 400, name="bounded")
    clusters, _ = run_clusters(store, cached_run(store, run))
    assert len(clusters) >= 2
    small, big = build_report(store, run, max_rows=8), build_report(store, run, max_rows=40)
    checker = check(big)
    cards = {int(i.removeprefix("row-")) for i in checker.ids if i.startswith("row-")}
    # At most max_rows cards, every one failing, and every cluster's first example among them.
    assert len(cards) == 40
    assert all(store.get_row(run, i).passed is not True for i in cards)
    assert {c.indexes[0] for c in clusters} <= cards
    # Not just the first failing rows: a later cluster's examples are taken in turn.
    first_failing = [r.index for r in store.aggregates.iter_unpassed_rows(run, limit=40)]
    assert cards != set(first_failing)
    # Every link goes to a card of this report.
    links = {v.removeprefix("#") for t, n, v in checker.attrs if n == "href" and v != "#"}
    assert links and links <= set(checker.ids)
    # The size follows max_rows, not the run's rows.
    assert len(small) < len(big) < 2 * len(big.split('id="row-', 1)[0]) + 40 * 20_000


def test_report_escapes_every_user_field(store):
    run = seed_xss_run(store)
    text = build_report(store, run)
    check(text)
    assert XSS not in text and XSS_IMG not in text and "<iframe" not in text
    assert "&lt;script&gt;window.__xss=1&lt;/script&gt;" in text


def test_report_cli_writes_the_file(store, tmp_path, capsys):
    a, b = seed_support_runs(store)
    out = tmp_path / "report.html"
    url = str(tmp_path / "runs.db")
    assert main(["report", b[:-1], "--store", url, "-o", str(out), "--compare", a]) == 0
    assert "report written to" in capsys.readouterr().out
    check(out.read_text())
    assert main(["report", "no-such-run", "--store", url, "-o", str(out)]) == 2
    assert "no run 'no-such-run'" in capsys.readouterr().err
    assert main(["report", a, "--store", url, "--max-rows", "-1"]) == 2
    # missing folders are made (the one output rule); a file where a folder should be is not
    made = tmp_path / "new" / "dir" / "r.html"
    assert main(["report", a, "--store", url, "-o", str(made)]) == 0 and made.is_file()
    blocked = made / "r.html"
    assert main(["report", a, "--store", url, "-o", str(blocked)]) == 2
    assert "cannot write the report" in capsys.readouterr().err


def test_report_cli_subprocess(store, tmp_path):
    a, _ = seed_support_runs(store)
    out = tmp_path / "sub.html"
    tooleval = Path(sys.executable).parent / "tooleval"
    done = subprocess.run(
        [str(tooleval), "report", a, "--store", str(tmp_path / "runs.db"), "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    check(out.read_text())


def test_write_report_returns_the_path(store, tmp_path):
    a, _ = seed_support_runs(store)
    path = write_report(store, a, tmp_path / "r.html", max_rows=0)
    assert path.exists() and "0 of 23 rows shown" in path.read_text()
