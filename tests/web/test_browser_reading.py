"""Reading runs in real Chromium: axe-core, keyboard, phone width, dark mode, filters that keep
the user at the rows, next row in a filtered view, exports, compare side by side."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from tests.web.conftest import artifact

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


def _pages(seeded) -> list[str]:
    store, a, b = seeded["store"], seeded["a"], seeded["b"]
    index = next(r.index for r in store.iter_rows(b) if r.row_id == "cancel-4")
    replayed = next(
        r.index
        for r in store.iter_rows(seeded["orders"])
        if r.result("state_match").passed is False
    )
    return [
        "/",
        f"/runs/{a}",
        f"/runs/{a}?result=fail&sort=-latency",
        f"/runs/{b}/rows/{index}",
        f"/runs/{seeded['names']}",
        f"/runs/{seeded['names']}/rows/0",
        f"/runs/{seeded['names']}/rows/1",
        f"/runs/{seeded['names']}/rows/4",
        f"/runs/{seeded['names']}?category=category-" + "c" * 3000,
        f"/compare?a={a}&b={b}",
        f"/compare/row?a={a}&b={b}&ia={index}&ib={index}",
        f"/runs/{a}/rows/99999999999999999999999",
        f"/runs/{seeded['chats']}/rows/0",
        f"/runs/{seeded['traces']}",
        f"/runs/{seeded['traces']}/rows/0",
        f"/runs/{a}?what=order_id&q=refund",
        f"/compare?run={a}&run={b}&run={seeded['chats']}",
        f"/compare?a={a}&b={b}&change=regressed",
        f"/runs/{seeded['clusters']}?failure_class=wrong_argument&detail=wrong+issue_refund.amount",
        f"/runs/{seeded['usage']}",
        f"/runs/{seeded['orders']}",
        f"/runs/{seeded['orders']}/rows/{replayed}",
        f"/compare?a={seeded['clusters']}&b={seeded['usage']}",
    ]


@pytest.fixture
def context_for(browser):
    made = []

    def make(**options):
        context = browser.new_context(**options)
        made.append(context)
        return context.new_page()

    yield make
    for context in made:
        context.close()


# The rules a colour scheme can change: the dark theme sets colours and nothing else
# (test_the_dark_theme_sets_only_colours), so every other rule finds in dark pages what it
# finds in light ones, and dark pages are checked against these.
COLOUR_RULES = ("color-contrast", "link-in-text-block")
DARK_BACKGROUND = "rgb(18, 22, 29)"
CSS_COLOUR = re.compile(r"#[0-9a-fA-F]{3,8}")


def _serious(page, rules: tuple[str, ...] = ()) -> list[tuple[str, str, list]]:
    """axe-core's serious and critical violations on the page (``rules``: only those)."""
    from axe_playwright_python.base import AXE_SCRIPT

    if not page.evaluate("typeof axe !== 'undefined'"):
        page.evaluate(AXE_SCRIPT)
    options: dict = {"resultTypes": ["violations"]}
    if rules:
        options["runOnly"] = {"type": "rule", "values": list(rules)}
    violations = page.evaluate("o => axe.run(document, o).then(r => r.violations)", options)
    return [
        (v["id"], v["impact"], [n["target"] for n in v["nodes"][:3]])
        for v in violations
        if v["impact"] in ("serious", "critical")
    ]


def _both_schemes(page) -> list[tuple[str, str, str, list]]:
    """Every rule in the light scheme, then the colour rules in the dark one, on one load."""
    page.emulate_media(color_scheme="light")
    problems = [("light", *p) for p in _serious(page)]
    page.emulate_media(color_scheme="dark")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == DARK_BACKGROUND
    return problems + [("dark", *p) for p in _serious(page, COLOUR_RULES)]


DESKTOP = {"width": 1400, "height": 900}


@pytest.fixture(scope="module")
def desktop_sweep(browser, viewer_url, seeded) -> dict[str, tuple[list, int]]:
    """Every page loaded once at desktop width: its axe problems and its scroll width."""
    context = browser.new_context(viewport=DESKTOP, bypass_csp=True)
    try:
        page = context.new_page()
        found = {}
        for path in _pages(seeded):
            page.emulate_media(color_scheme="light")
            page.goto(viewer_url + path)
            width = page.evaluate("document.documentElement.scrollWidth")
            found[path] = (_both_schemes(page), width)
        return found
    finally:
        context.close()


def test_axe_finds_nothing_serious(desktop_sweep):
    problems = [(path, *p) for path, (found, _) in desktop_sweep.items() for p in found]
    assert len(desktop_sweep) == 23 and not problems, problems


def _dark_declarations(css: str) -> list[str]:
    """The declarations inside every ``@media (prefers-color-scheme: dark)`` block."""
    found = []
    for start in [m.end() for m in re.finditer(r"@media \(prefers-color-scheme: dark\) \{", css)]:
        depth, end = 1, start
        while depth:
            depth += {"{": 1, "}": -1}.get(css[end], 0)
            end += 1
        body = re.sub(r"[^{}]*\{([^{}]*)\}", r"\1;", css[start : end - 1])
        found += [d.strip() for d in body.split(";") if d.strip()]
    return found


def test_the_dark_theme_sets_only_colours():
    from importlib import resources

    from tooleval.report.charts import THEME_CSS

    sheets = {
        "style.css": resources.files("tooleval.report").joinpath("style.css").read_text(),
        "charts.THEME_CSS": THEME_CSS,
    }
    src = Path(resources.files("tooleval")).resolve()
    themed = {
        p.name
        for p in src.rglob("*")
        if p.is_file()
        and p.suffix in (".css", ".py", ".html")
        and "prefers-color-scheme" in p.read_text(errors="replace")
    }
    assert themed == {"style.css", "charts.py"}, "a new dark theme: check it here too"
    for name, css in sheets.items():
        declarations = _dark_declarations(css)
        assert declarations, name
        for declaration in declarations:
            prop, _, value = (part.strip() for part in declaration.partition(":"))
            assert prop.startswith("--") or prop in ("fill", "stroke"), (name, declaration)
            assert CSS_COLOUR.fullmatch(value), (name, declaration)


def test_dark_mode_follows_the_system(context_for, viewer_url, seeded):
    page = context_for(color_scheme="dark")
    page.goto(viewer_url + f"/runs/{seeded['a']}")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(18, 22, 29)"
    page.screenshot(path=artifact("viewer-run-dark.png"), full_page=False)
    light = context_for(color_scheme="light")
    light.goto(viewer_url + f"/runs/{seeded['a']}")
    assert light.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(247, 248, 250)"


def test_no_page_is_wider_than_a_phone(context_for, viewer_url, seeded):
    page = context_for(viewport=PHONE, device_scale_factor=1, is_mobile=True, has_touch=True)
    wide = []
    for path in _pages(seeded):
        page.goto(viewer_url + path)
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > PHONE["width"]:
            wide.append((path, width))
    assert not wide, wide
    # The rows table becomes a card per row: nothing to scroll, the reason at full width.
    page.goto(viewer_url + f"/runs/{seeded['a']}")
    box = page.locator("div.table-scroll:has(table.rows)")
    assert box.evaluate("e => e.scrollWidth <= e.clientWidth")
    assert page.locator("table.rows td.why").first.evaluate("e => e.clientWidth") >= 300
    page.goto(viewer_url + f"/runs/{seeded['names']}/rows/0")
    page.screenshot(path=artifact("viewer-phone-long-name.png"), full_page=False)


def test_no_page_is_wider_than_a_desktop(desktop_sweep):
    wide = [(path, width) for path, (_, width) in desktop_sweep.items() if width > DESKTOP["width"]]
    assert len(desktop_sweep) == 23 and not wide, wide


def test_a_3000_character_name_wraps_and_keeps_its_full_text_on_hover(page, viewer_url, seeded):
    for path in ("/rows/0", "/rows/4", ""):
        page.goto(viewer_url + f"/runs/{seeded['names']}{path}")
        assert page.evaluate("document.documentElement.scrollWidth") <= 1280, path
    page.goto(viewer_url + f"/runs/{seeded['names']}/rows/0")
    chip = page.locator("article.row-card .chip-col").nth(1).locator("li.chip").first
    assert chip.get_attribute("title").startswith("refund_" + "x" * 3000)
    assert len(chip.inner_text()) < 400


def test_look_alike_names_are_marked_visibly(page, viewer_url, seeded):
    page.goto(viewer_url + f"/runs/{seeded['names']}/rows/1")
    note = page.locator("article.row-card .chip-lookalike")
    assert note.count() == 1 and note.is_visible() and "LOOK-ALIKE" in note.inner_text().upper()
    page.goto(viewer_url + f"/runs/{seeded['names']}/rows/3")
    assert "refund⟨U+202E⟩gnp.exe" in page.inner_text("article.row-card")


def test_choosing_a_filter_keeps_the_rows_in_view(page, viewer_url, seeded):
    page.goto(viewer_url + f"/runs/{seeded['a']}")
    with page.expect_navigation():
        page.select_option("select[name=result]", "fail")
    assert page.url.endswith("#rows") and "result=fail" in page.url
    assert page.evaluate("window.scrollY") > 300
    heading = page.locator("#rows").bounding_box()
    assert -2 <= heading["y"] < 900
    # Score order with no metric chosen: a page, not a 400.
    with page.expect_navigation():
        page.select_option("select[name=sort]", "score")
    assert page.locator("table.rows").count() == 1
    assert "ordered by tool_correctness" in page.inner_text("main")


def test_keyboard_through_a_filtered_view(page, viewer_url, seeded):
    store, run = seeded["store"], seeded["a"]
    failing = [r.row_id for r in store.iter_rows(run, passed=False)]
    page.goto(viewer_url + f"/runs/{run}?result=fail")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "search"
    page.keyboard.press("Escape")
    assert page.evaluate("document.activeElement.id") != "search"
    page.keyboard.press("j")
    page.keyboard.press("j")
    current = page.locator("table.rows tbody tr.current")
    assert current.count() == 1 and failing[1] in current.inner_text()
    page.keyboard.press("k")
    assert failing[0] in page.locator("table.rows tbody tr.current").inner_text()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.locator("h1").inner_text() == f"Row {failing[0]}"
    with page.expect_navigation():
        page.keyboard.press("j")
    assert page.locator("h1").inner_text() == f"Row {failing[1]}"
    assert "row 2 of" in page.inner_text("nav.pager")
    with page.expect_navigation():
        page.keyboard.press("u")
    assert "result=fail" in page.url and page.url.endswith(f"#row-{page.url.split('-')[-1]}")
    assert page.locator("table.rows tbody tr.current").count() == 1
    page.keyboard.press("Escape")
    assert page.locator("table.rows tbody tr.current").count() == 0


def test_next_row_and_breadcrumb_keep_the_filter(page, viewer_url, seeded):
    store, run = seeded["store"], seeded["a"]
    refunds = [r.row_id for r in store.iter_rows(run, category="refund", passed=False)]
    page.goto(viewer_url + f"/runs/{run}?category=refund&result=fail")
    with page.expect_navigation():
        page.locator("table.rows").get_by_role("link", name=refunds[0], exact=True).click()
    seen = [page.locator("h1").inner_text()]
    while page.locator("#row-next").count():
        with page.expect_navigation():
            page.click("#row-next")
        seen.append(page.locator("h1").inner_text())
    assert seen == [f"Row {r}" for r in refunds]
    with page.expect_navigation():
        page.locator("nav.crumbs a").nth(1).click()
    assert "category=refund" in page.url and "result=fail" in page.url


def test_export_downloads_the_filtered_rows(page, viewer_url, seeded):
    store, run = seeded["store"], seeded["a"]
    page.goto(viewer_url + f"/runs/{run}?category=refund&result=fail")
    with page.expect_download() as download:
        page.get_by_role("link", name="CSV").click()
    text = Path(download.value.path()).read_text(encoding="utf-8")
    ids = [row["row_id"] for row in csv.DictReader(io.StringIO(text))]
    assert ids == [r.row_id for r in store.iter_rows(run, category="refund", passed=False)]
    permalink = page.get_by_role("link", name="link to this view").get_attribute("href")
    assert "category=refund" in permalink and "result=fail" in permalink


def test_compare_regressed_only_and_side_by_side(page, viewer_url, seeded):
    page.goto(viewer_url + f"/compare?a={seeded['a']}&b={seeded['b']}")
    with page.expect_navigation():
        page.get_by_role("link", name="regressed only").click()
    changes = page.locator("table.deltas tbody td:nth-child(4)").all_inner_texts()
    assert changes and set(changes) == {"regressed"}
    assert page.locator("table.deltas .arg-diff").count() >= 2
    with page.expect_navigation():
        page.locator("table.deltas").get_by_role("link", name="cancel-4").first.click()
    assert "A vs B" in page.locator("h1").inner_text()
    highlighted = page.locator("table.side-by-side .arg-diff").all_inner_texts()
    assert any("4404" in h for h in highlighted) and any("4417" in h for h in highlighted)
    page.screenshot(path=artifact("viewer-compare-row.png"), full_page=True)


def test_skip_link_is_first_and_moves_focus_to_the_content(page, viewer_url, seeded):
    page.goto(viewer_url + f"/runs/{seeded['a']}")
    page.keyboard.press("Tab")
    focused = page.evaluate("document.activeElement.textContent")
    assert focused == "Skip to content"
    assert page.locator("a.skip-link").is_visible()
    page.keyboard.press("Enter")
    # a same-document navigation: the hash changes after the key's event, so wait for it
    page.wait_for_function("location.hash === '#main'", timeout=10_000)
    assert page.url.endswith("#main")


def test_axe_finds_nothing_serious_in_the_static_report(context_for, seeded, tmp_path):
    from tooleval.report import write_report

    report = write_report(
        seeded["store"], seeded["b"], tmp_path / "r.html", compare_with=seeded["a"]
    )
    page = context_for(bypass_csp=True)
    page.goto(report.as_uri())
    serious = _both_schemes(page)
    assert not serious, serious
    phone = context_for(viewport=PHONE, is_mobile=True)
    phone.goto(report.as_uri())
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
