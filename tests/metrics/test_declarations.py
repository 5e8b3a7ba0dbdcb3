"""Each metric is declared once: its signature, its declaration, the registry and the docs agree."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest

import tooleval.metrics as metrics
from tooleval.errors import ConfigError
from tooleval.metrics import bind, get_metric, list_metrics
from tooleval.metrics.reference import refresh
from tooleval.metrics.registry import check_params
from tooleval.model.metric import SampleForm, declaration, metric

DOCS = Path(__file__).resolve().parents[2] / "docs" / "metrics.md"


def _keyword_defaults(function: Any) -> dict[str, Any]:
    signature = inspect.signature(function)  # follows __wrapped__ to the undecorated function
    return {
        name: p.default
        for name, p in signature.parameters.items()
        if p.kind is p.KEYWORD_ONLY and p.default is not p.empty and name != "judge"
    }


def _function_of(info: Any) -> Any:
    form = info.score_sample
    return form.public if isinstance(form, SampleForm) else form


@pytest.mark.parametrize("info", list_metrics(), ids=lambda info: info.name)
def test_every_signature_default_is_the_declared_default(info: Any) -> None:
    declared = info.params
    defaults = _keyword_defaults(_function_of(info))
    for name, default in defaults.items():
        if name in declared:
            assert default == declared[name].default, f"{info.name}.{name}"
    for name, param in declared.items():
        if param.choices is not None:
            assert param.default in param.choices, f"{info.name}.{name}: default not a choice"
    if isinstance(info.score_sample, SampleForm):  # declared with @metric: the same set
        assert set(defaults) == set(declared)


@pytest.mark.parametrize("name", ["tool_call_accuracy", "tool_call_f1", "tool_correctness"])
def test_the_public_functions_defaults_are_the_registrys(name: str) -> None:
    info = get_metric(name)
    function = getattr(metrics, name)
    assert declaration(function).options == info.params
    assert _keyword_defaults(function) == {k: p.default for k, p in info.params.items()}


def test_output_contains_shares_its_declared_defaults() -> None:
    info = get_metric("output_contains")
    for name, default in _keyword_defaults(metrics.output_contains).items():
        assert info.params[name].default == default, name


def test_the_metrics_page_tables_are_the_declarations() -> None:
    page = DOCS.read_text(encoding="utf-8")
    assert page.count("<!-- options: ") >= 5
    assert page == refresh(page), (
        "docs/metrics.md differs from the declarations: "
        "run `python -m tooleval.metrics.reference docs/metrics.md`"
    )


def test_enum_values_take_any_case_and_hyphens_and_record_one_spelling() -> None:
    for given in ("Strict", "STRICT", " strict".strip()):
        assert bind("tool_correctness", order=given).params["order"] == "strict"
    assert check_params("tool_correctness", {"extra_calls": "PENALIZE"}) == {
        "extra_calls": "penalize"
    }
    assert metrics.tool_call_accuracy(["a"], ["a"], order="Flexible").params["order"] == "flexible"
    with pytest.raises(ConfigError, match="order must be one of 'strict', 'flexible'"):
        bind("tool_correctness", order="sideways")
    with pytest.raises(ConfigError, match="exact_match must be one of"):
        bind("tool_correctness", exact_match=1)  # a bool option takes only true/false


def test_unknown_names_get_a_did_you_mean() -> None:
    with pytest.raises(ConfigError, match=r"did you mean 'tool_correctness'\?"):
        get_metric("tool_corectness")
    with pytest.raises(ConfigError, match=r"did you mean 'extra_keys'\?"):
        bind("tool_call_f1", extra_key="ignore")
    with pytest.raises(ConfigError, match=r"did you mean 'check_ordering'\?"):
        bind("tool_correctness", check_orderin=True)


def test_a_declaration_must_describe_exactly_its_options() -> None:
    with pytest.raises(ConfigError, match="missing: \\['b'\\]"):

        @metric("bad", "", requires=(), help={"a": "an option"})
        def bad(sample: Any, *, a: int = 1, b: int = 2) -> Any:
            return a + b

    with pytest.raises(ConfigError, match="needs a default"):

        @metric("bad", "", requires=(), help={"a": "an option"})
        def worse(sample: Any, *, a: int) -> Any:
            return a
