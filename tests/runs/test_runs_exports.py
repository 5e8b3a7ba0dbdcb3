"""`tooleval.runs` exports what a library user needs for CI loops, each documented."""

from __future__ import annotations

import tooleval.runs as runs
from tooleval.runs import ResponseCache, default_cache_path, parse_metric_specs, rescore_run


def test_all_is_unique_and_resolves_with_docstrings():
    assert len(runs.__all__) == len(set(runs.__all__))
    for name in runs.__all__:
        obj = getattr(runs, name)
        if callable(obj):
            assert (obj.__doc__ or "").strip(), f"tooleval.runs.{name} has no docstring"


def test_ci_names_are_the_implementations():
    from tooleval.runs import rescore as rescore_module
    from tooleval.runs import response_cache

    assert {"ResponseCache", "default_cache_path", "parse_metric_specs", "rescore_run"} <= set(
        runs.__all__
    )
    assert ResponseCache is response_cache.ResponseCache
    assert default_cache_path is response_cache.default_cache_path
    assert rescore_run is rescore_module.rescore_run
    assert parse_metric_specs is rescore_module.parse_metric_specs


def test_a_cache_from_the_package_round_trips(tmp_path):
    cache = ResponseCache(tmp_path / "deep" / "responses.db")
    cache.put("k", {"output": "x"})
    cache.close()
    again = ResponseCache(tmp_path / "deep" / "responses.db")
    assert again.get("k") == {"output": "x"} and len(again) == 1
    again.close()
    assert ResponseCache(tmp_path / "deep" / "responses.db", refresh=True).get("k") is None
