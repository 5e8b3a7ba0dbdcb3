"""Each metric is declared once: its signature, its declaration, the registry and the docs agree."""

from __future__ import annotations

import inspect
import re
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


def _prose_rows(page: str, header: str) -> list[list[str]]:
    """The body rows of the markdown table under the line starting with ``header``."""
    lines = page.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip().strip("|"))])
    return rows


def _ticked(text: str) -> list[str]:
    return re.findall(r"`([^`]+)`", text)


def _value(text: str) -> Any:
    import json

    text = text.strip().strip('"')
    if text in {"None", "null"}:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


def test_the_metrics_page_prose_tables_match_the_declarations() -> None:
    """Every default and option named outside the generated tables is a declared one."""
    page = DOCS.read_text(encoding="utf-8")
    names = {info.name for info in list_metrics()}
    checked = 0
    # "Defaults that decide a verdict": `option=value` | `metric`, ... (or `option` and, per
    # metric group separated by ';', the default after the metrics)
    for row in _prose_rows(page, "| default | where |"):
        option, _, default = _ticked(row[0])[0].partition("=")
        for group in row[1].split(";"):
            ticks = _ticked(group)
            listed = [t for t in ticks if t in names]
            values = [t for t in ticks if t not in names]
            expected = _value(default) if default else _value(values[0])
            for name in listed:
                params = get_metric(name).params
                assert option in params, f"docs/metrics.md: {name} has no option {option!r}"
                assert params[option].default == expected, f"{name}.{option} default"
                checked += 1
    # "One vocabulary": | `option` | `a` \| `b` | meaning | `metric` (default `x`), ... |
    for row in _prose_rows(page, "| option | values | meaning | metrics |"):
        option = _ticked(row[0])[0]
        allowed = [t for t in _ticked(row[1]) if "|" not in t]
        for match in re.finditer(r"(but )?`([a-z_0-9]+)`(?: \(default `([^`]+)`\))?", row[3]):
            excluded, name, default = match.groups()
            if name not in names or excluded:
                continue
            param = get_metric(name).params.get(option)
            assert param is not None, f"docs/metrics.md: {name} has no option {option!r}"
            if default is not None:
                assert param.default == _value(default), f"{name}.{option} default"
            if param.choices is not None and len(allowed) > 1:
                assert set(allowed) == set(param.choices), f"{name}.{option} values"
            checked += 1
    assert checked >= 10


def test_option_values_are_checked_from_the_declaration_at_bind() -> None:
    """A value its declaration does not allow is refused by bind, naming option and value."""
    cases = [
        ("tool_correctness", {"threshold": 1.5}, "threshold", "1.5"),
        ("tool_correctness", {"threshold": "abc"}, "threshold", "'abc'"),
        ("tool_call_f1", {"threshold": float("nan")}, "threshold", "nan"),
        ("tool_call_accuracy", {"threshold": True}, "threshold", "True"),
        ("tool_correctness", {"order": "stric"}, "order", "did you mean 'strict'"),
        ("tool_call_f1", {"args": "exactt"}, "args", "did you mean 'exact'"),
        ("tool_call_f1", {"args": {"keys": 3}}, "args", "matcher"),
        ("tool_correctness", {"argument_keys": 5}, "argument_keys", "got 5"),
        ("output_contains", {"values": 3}, "values", "list of strings"),
        ("task_success", {"max_chars": 0}, "max_chars", "whole number"),
        ("state_match", {"environment": "no_file.py:make"}, "environment", "cannot import"),
        ("state_match", {"environment": "no_such_env"}, "environment", "unknown environment"),
        ("tool_correctness", {"exact_match": 1}, "exact_match", "got 1"),
    ]
    for name, options, option, says in cases:
        with pytest.raises(ConfigError) as caught:
            check_params(name, options)
        assert caught.value.context["field"] == option, (name, options)
        assert says in str(caught.value) and repr(name) in str(caught.value), str(caught.value)
        with pytest.raises(ConfigError):
            bind(name, **options) if name != "task_success" else check_params(name, options)


def test_a_direct_call_of_a_metric_checks_its_options_the_same_way() -> None:
    for call in (
        lambda: metrics.tool_correctness(["a"], ["a"], threshold=1.5),
        lambda: metrics.tool_call_f1(["a"], ["a"], args="exactt"),
        lambda: metrics.tool_call_accuracy(["a"], ["a"], order="sideways"),
    ):
        with pytest.raises(ConfigError, match="metric '"):
            call()


def test_a_direct_call_gets_its_inputs_made_canonical_by_the_declaration() -> None:
    from tooleval.matching import ArgumentComparator
    from tooleval.metrics import score_sample
    from tooleval.metrics.accuracy import tool_call_accuracy
    from tooleval.metrics.correctness import tool_correctness
    from tooleval.model import Sample, ToolCall

    expected = [{"name": "f", "args": {"q": "Paris "}}, "g"]
    actual = [ToolCall("f", {"q": "paris"}), "g"]
    registry = score_sample(
        "tool_call_accuracy",
        Sample(tools_called=actual, expected_tools=expected),
        args="normalized",
        threshold=1,
    )
    by_position = tool_call_accuracy(expected, actual, args="normalized", threshold=1)
    by_name = tool_call_accuracy(
        actual=actual, expected=expected, args=ArgumentComparator("normalized"), threshold=1
    )
    assert registry == by_position == by_name
    assert by_name.threshold == 1.0 and by_name.params["args"] == "normalized"
    assert tool_correctness(["f"], None).score is None  # no record of the calls stays unscored
    with pytest.raises(TypeError):  # the function's own error for a missing input
        tool_call_accuracy(expected)  # type: ignore[call-arg]
