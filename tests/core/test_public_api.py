"""The curated public surface: `tooleval.__all__` is exactly what resolves, and importing is cheap."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import tooleval


def test_all_names_resolve():
    for name in tooleval.__all__:
        assert getattr(tooleval, name) is not None, name


def test_all_is_sorted_and_unique():
    assert tooleval.__all__ == sorted(set(tooleval.__all__))


def test_public_functions_have_docstrings():
    for name in tooleval.__all__:
        obj = getattr(tooleval, name)
        if callable(obj) and not isinstance(obj, type(tooleval)):
            assert (obj.__doc__ or "").strip(), f"{name} has no docstring"


def test_unknown_attribute_is_an_attribute_error():
    try:
        tooleval.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("expected AttributeError")


HEAVY = [
    "sqlalchemy",
    "httpx",
    "torch",
    "transformers",
    "ray",
    "fastapi",
    "uvicorn",
    "openai",
    "pyarrow",
    "rich",
    "rapidfuzz",
    "langchain_core",
    "ragas",
    "opentelemetry",
    "jinja2",
    "yaml",
    "asyncio",
    "threading",
    "socket",
    "sqlite3",
]


def test_import_is_light_and_quiet():
    """`import tooleval` imports no heavy or I/O dependency and starts no thread."""
    code = (
        "import sys, json, threading; import tooleval; "
        f"print(json.dumps({{'mods': [m for m in {HEAVY!r} if m in sys.modules], "
        "'threads': threading.active_count()}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    report = json.loads(out.stdout)
    # threading is imported by the probe itself; everything else must be absent.
    assert [m for m in report["mods"] if m != "threading"] == []
    assert report["threads"] == 1


def test_all_covers_eager_and_lazy_names_exactly():
    eager = {
        n
        for n, v in vars(tooleval).items()
        if not n.startswith("_") and not isinstance(v, type(tooleval))
    }
    lazy = set(tooleval._LAZY)
    assert set(tooleval.__all__) == eager | lazy


def test_the_namespace_and_dir_hold_only_public_names():
    helpers = {"Any", "TYPE_CHECKING", "annotations", "importlib", "typing"}
    assert not helpers & set(dir(tooleval)), sorted(helpers & set(dir(tooleval)))
    assert not helpers & set(tooleval.__all__)
    assert not helpers & set(vars(tooleval))
    assert set(dir(tooleval)) == {*tooleval.__all__, "__version__"}
    for name in dir(tooleval):
        assert getattr(tooleval, name) is not None, name


def test_metric_functions_take_the_call_shapes_datasets_take():
    from tooleval.errors import ConfigError

    expected = [tooleval.ToolCall("lookup", {"id": 1}), "cancel"]
    shapes = [
        [tooleval.ToolCall("lookup", {"id": 1}), tooleval.ToolCall("cancel", {})],
        [{"name": "lookup", "args": {"id": 1}}, {"name": "cancel", "args": {}}],
        [{"name": "lookup", "arguments": {"id": 1}}, "cancel"],
        [{"name": "lookup", "arguments": '{"id": 1}'}, {"name": "cancel"}],
    ]
    for metric in (
        tooleval.tool_correctness,
        tooleval.tool_call_accuracy,
        tooleval.tool_call_f1,
        tooleval.trajectory_match,
    ):
        for actual in shapes:
            assert metric(expected, actual).score == 1.0, (metric.__name__, actual)
        dict_expected = [{"name": "lookup", "args": {"id": 1}}, {"name": "cancel"}]
        assert metric(dict_expected, shapes[0]).score == 1.0
        assert metric([{"name": "lookup", "args": {"id": 2}}], shapes[0][:1]).score == 0.0
        with pytest.raises(ConfigError, match=r"actual\[1\].*expected a ToolCall, a tool name"):
            metric(expected, [shapes[0][0], 42])
        with pytest.raises(ConfigError, match=r"expected\[0\].*without a string 'name'"):
            metric([{"tool": "lookup"}], [])
        with pytest.raises(ConfigError, match="not both"):
            metric(expected, [{"name": "x", "args": {}, "arguments": {}}])


def test_lazy_names_are_visible_to_type_checkers():
    """Every lazily imported name is also imported under ``TYPE_CHECKING`` from the same module."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(tooleval))
    typed: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in (
            getattr(node.test, "id", ""),
            getattr(node.test, "attr", ""),
        ):
            for stmt in node.body:
                assert isinstance(stmt, ast.ImportFrom)
                typed.update({alias.name: stmt.module for alias in stmt.names})
    assert typed == tooleval._LAZY


def test_version_comes_from_package_metadata():
    from importlib.metadata import version

    assert tooleval.__version__ == version("tooleval")
