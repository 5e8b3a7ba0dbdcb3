"""A run made with ``--repeat N``: its repeats section in the static report, kept in the store."""

from __future__ import annotations

import re
from html import escape

import pytest
from tests.web.seed import METRICS, _cases, _record
from tests.web.test_browser_repeats import N, _attempts

from tooleval.analysis.aggregates import aggregate_run, cached_run, run_repeats
from tooleval.analysis.repeats import analyse_repeats
from tooleval.report import build_report as render_report
from tooleval.store import open_store


@pytest.fixture
def store(tmp_path):
    opened = open_store(tmp_path / "runs.db")
    yield opened
    opened.close()


def _repeated(store) -> tuple[str, list, int]:
    records, stride = _attempts()
    run = store.create_run(
        "flaky x3",
        dataset={"path": "cases.jsonl", "rows": stride},
        connector={},
        metrics=METRICS,
        config={"repeat": {"n": N, "stride": stride}},
    )
    store.add_rows(run, records)
    store.finish_run(run)
    return run, records, stride


def test_the_report_shows_pass_hat_k_and_links_flaky_rows_to_their_cards(store):
    run, records, stride = _repeated(store)
    html = render_report(store, run)
    assert f"Repeats: {N} attempts per row" in html and "pass^k" in html and "pass@k" in html
    summary = analyse_repeats(records, N, stride)
    assert summary.flaky, "the seed must have flaky rows for this test to mean anything"
    section = html[html.index('class="repeats"') :]
    section = section[: section.index("</section>")]
    assert "<script>" not in section, "row ids are escaped"
    for row in summary.flaky:
        assert escape(row.row_id, quote=False) in section
    targets = re.findall(r'href="#(row-\d+)"', section)
    assert targets, "flaky rows link to their cards"
    for target in targets:
        assert f'id="{target}"' in html, f"a flaky row links to a card that is not shown: {target}"


def test_the_digest_is_stored_once_the_run_has_stopped(store):
    run, records, stride = _repeated(store)
    info = cached_run(store, run)
    digest = run_repeats(store, info)
    assert digest == analyse_repeats(records, N, stride).digest(limit=50)
    stored = store.aggregates.load_aggregate(run, "repeats/1", row_count=info.row_count)
    assert stored is not None and stored["digest"] == digest
    # A later view reads the stored document: prove it by planting a marker in it.
    store.aggregates.save_aggregate(
        run,
        "repeats/1",
        {"digest": {**digest, "complete": -7}, "stamp": stored["stamp"]},
        row_count=info.row_count,
    )
    assert run_repeats(store, info)["complete"] == -7
    aggregate_run(store, run)  # `tooleval aggregate` recomputes it
    assert run_repeats(store, info)["complete"] == digest["complete"]


def test_a_resumed_run_gets_a_fresh_digest(store):
    records, stride = _attempts()
    run = store.create_run(
        "flaky x3",
        dataset={"path": "cases.jsonl", "rows": stride},
        connector={},
        metrics=METRICS,
        config={"repeat": {"n": N, "stride": stride}},
    )
    store.add_rows(run, records[: 2 * stride])  # stopped during the third attempt
    store.finish_run(run, "interrupted")
    first = run_repeats(store, cached_run(store, run))
    assert first is not None and first["complete"] == 0
    store.reopen_run(run)
    store.add_rows(run, records[2 * stride :])
    store.finish_run(run)
    later = run_repeats(store, cached_run(store, run))
    assert later == analyse_repeats(records, N, stride).digest(limit=50)
    assert later["complete"] > 0


def test_a_run_made_once_has_no_repeats_section(store):
    run = store.create_run("once", dataset={}, connector={}, metrics=METRICS)
    store.add_rows(run, [_record(i, case) for i, case in enumerate(_cases("a"))])
    store.finish_run(run)
    assert run_repeats(store, cached_run(store, run)) is None
    assert "attempts per row" not in render_report(store, run)
