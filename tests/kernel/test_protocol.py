"""The kernel's report of what it accepts agrees with the metrics' declarations.

``_kernel.accepts()`` (kernel/src/protocol.rs) is the kernel's one statement
of the metrics, options and matchers it scores; the engine reads it instead
of restating it. These tests fail when a declaration and the kernel disagree:
an option one side has and the other lacks, a value the kernel takes that no
declaration allows, a value the kernel claims to take but scores differently
from the Python reference, or a matcher whose spec's options differ.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from tests.kernel.test_identity import python_line

from tooleval.matching import CallableMatcher, Unordered, resolve_matcher
from tooleval.matching.specs import spec_is_whole
from tooleval.metrics import bind, engine, get_metric
from tooleval.model import AnyOf

compiled_kernel = pytest.importorskip("tooleval._kernel", reason="the compiled kernel is not built")
pytestmark = pytest.mark.skipif(
    engine.kernel_status() != "compiled",
    reason=f"compiled kernel {engine.kernel_status()} (not built, or TOOLEVAL_NO_KERNEL set)",
)


def _reported() -> dict[str, Any]:
    return engine.accepted(compiled_kernel)


def test_the_kernel_speaks_this_engines_protocol() -> None:
    assert compiled_kernel.PROTOCOL == engine.PROTOCOL == _reported()["protocol"]
    assert tuple(_reported()["metrics"]) == compiled_kernel.METRICS


@pytest.mark.parametrize("name", list(compiled_kernel.METRICS))
def test_each_kernel_metric_has_exactly_the_declared_options(name: str) -> None:
    declared = get_metric(name)
    assert declared.provider == "tooleval.metrics.builtin" and not declared.needs_judge
    options = _reported()["metrics"][name]
    assert list(options) == list(declared.params), "the kernel's options, in declared order"
    for option, values in options.items():
        choices = declared.params[option].choices
        if values is None:
            continue
        assert choices is not None, f"{name}.{option}: the kernel enumerates what is free text"
        assert set(values) <= set(choices), f"{name}.{option}: {values} beyond {choices}"


def _rows() -> list[bytes]:
    f = {"name": "f", "args": {"q": "x", "n": 1}}
    g = {"name": "g", "args": {"q": "y"}}
    h = {"name": "h", "args": {}}
    rows: list[dict[str, Any]] = [
        {"tools_called": [], "expected_tools": []},
        {"tools_called": [f], "expected_tools": []},
        {"tools_called": [], "expected_tools": [f]},
        {"tools_called": [f, g], "expected_tools": [f, g]},
        {"tools_called": [g, f], "expected_tools": [f, g]},
        {"tools_called": [f, g, h], "expected_tools": [f, g]},
        {
            "tools_called": [{"name": "f", "args": {"q": "x", "n": 2, "x": 1}}],
            "expected_tools": [f],
        },
        {"tools_called": [f, f], "expected_tools": ["f", "g"]},
        {
            "output": "Order 4471 is cancelled; refund 1,093.",
            "metadata": {"output_contains": ["4471", "REFUND"]},
        },
        {"output": "Order 4471 is cancelled.", "metadata": {"output_contains": ["9999", "4471"]}},
        {"output": "Total 1093", "metadata": {"output_contains": ["1,093", 1093]}},
    ]
    return [orjson.dumps({"id": f"r{k}", **row}) for k, row in enumerate(rows)]


def _option_values() -> list[tuple[str, str, Any]]:
    cases = []
    for name, options in _reported()["metrics"].items():
        for option, values in options.items():
            for value in values or ():
                cases.append((name, option, value))
    return cases


@pytest.mark.parametrize(("name", "option", "value"), _option_values())
def test_every_value_the_kernel_takes_scores_as_the_python_reference(
    name: str, option: str, value: Any
) -> None:
    variants = [{option: value}]
    if name == "output_contains":  # its other flags change which texts match
        variants += [{option: value, "require": "any"}, {option: value, "case_sensitive": True}]
    for params in variants:
        metric = bind(name, **params)
        compiled = engine.fastest_engine(metric)
        assert compiled.compiled, f"the kernel claims {name} {params} but does not take it"
        scored = 0
        for number, line in enumerate(_rows(), start=1):
            got = compiled.kernel.score_line(line, number)
            if got is None:
                continue  # a row the kernel hands back is scored by Python: never wrong
            assert got == python_line(metric, number, line), (name, params, line)
            scored += 1
        assert scored >= 3, f"the kernel scored only {scored} rows of {name} {params}"


def test_declared_values_the_kernel_does_not_take_stay_in_python() -> None:
    reported = _reported()["metrics"]
    left = 0
    for name, options in reported.items():
        for option, param in get_metric(name).params.items():
            taken = options[option]
            for value in param.choices or ():
                if taken is not None and value not in taken:
                    assert not engine.fastest_engine(bind(name, **{option: value})).compiled
                    left += 1
    assert left >= 1  # output_contains' messages="agent" reads every agent message


# One instance of every built-in matcher with each option of its spec set.
_EVERY_OPTION = {
    "exact": "exact",
    "ignore": "ignore",
    "normalized": {"normalized": {"case_sensitive": True, "numeric_text": True}},
    "numeric": {"numeric": {"abs_tol": 0.5, "rel_tol": 0.0, "int_float_equal": False}},
    "similarity": {
        "similarity": {"method": "jaro_winkler", "min_score": 0.5, "case_sensitive": False}
    },
    "any_of": {"any_of": {"values": [1, "a"], "optional": True}},
    "unordered": {"unordered": {"matcher": "normalized", "recursive": True}},
    "numeric_text": {"numeric_text": {"matcher": "normalized"}},
}


def test_the_kernels_matchers_take_exactly_the_options_of_each_matchers_spec() -> None:
    kinds = _reported()["matchers"]
    assert set(kinds) == set(_EVERY_OPTION)
    for kind, spec in _EVERY_OPTION.items():
        matcher = resolve_matcher(spec)
        assert spec_is_whole(matcher)
        described = engine._comparator_spec(matcher)
        assert described == spec, f"the engine hands the kernel {kind}'s own spec"
        options = set() if isinstance(spec, str) else set(spec[kind])
        assert options == set(kinds[kind]), f"{kind}: its spec's options vs the kernel's"
        metric = bind("tool_call_accuracy", args=spec)
        assert engine.fastest_engine(metric).compiled, f"the kernel takes {kind}"
    methods = set(_reported()["similarity_methods"])
    assert methods == {"levenshtein", "jaro_winkler"}


def test_matchers_their_spec_does_not_describe_stay_in_python() -> None:
    def same(expected: Any, actual: Any) -> bool:
        return bool(expected == actual)

    named_exact = CallableMatcher(same, name="exact")  # its spec says "exact"
    wrapped = Unordered(matcher=named_exact)
    normalised = AnyOf(["a"], normalise=str.lower)
    for matcher in (named_exact, wrapped, normalised, AnyOf([AnyOf(["a"])])):
        assert not spec_is_whole(matcher)
        assert engine._comparator_spec(matcher) is None
        assert not engine.fastest_engine(bind("tool_call_accuracy", args=matcher)).compiled
    spec = {"unordered": {"matcher": "exact", "recursive": False, "surprise": 1}}
    config = {"metric": "tool_call_accuracy", "threshold": None, "args": spec}
    config.update({"order": "strict", "empty": "perfect"})
    with pytest.raises(ValueError, match="kernel config: matcher option"):
        compiled_kernel.Kernel(orjson.dumps(config), b"{}", b"null")


def test_the_kernel_refuses_a_config_with_an_option_it_does_not_report() -> None:
    config = {"metric": "tool_call_f1", "threshold": None, "args": "exact"}
    config.update({"empty": "perfect", "extra_keys": "ignore"})
    compiled_kernel.Kernel(orjson.dumps(config), b"{}", b"null")  # what it reports: taken
    for extra in ({"surprise": 1}, {"extra_keys": "sometimes"}):
        with pytest.raises(ValueError, match="kernel config"):
            compiled_kernel.Kernel(orjson.dumps({**config, **extra}), b"{}", b"null")
