"""The curated public surface: `tooleval.__all__` is exactly what resolves, and importing is cheap."""

from __future__ import annotations

import json
import subprocess
import sys

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
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    report = json.loads(out.stdout)
    # threading is imported by the probe itself; everything else must be absent.
    assert [m for m in report["mods"] if m != "threading"] == []
    assert report["threads"] == 1


def test_all_covers_eager_and_lazy_names_exactly():
    eager = {
        n
        for n, v in vars(tooleval).items()
        if not n.startswith("_") and not isinstance(v, type(tooleval)) and n != "annotations"
    }
    lazy = set(tooleval._LAZY)
    assert set(tooleval.__all__) == (eager | lazy) - {"importlib", "Any", "TYPE_CHECKING"}


def test_lazy_names_are_visible_to_type_checkers():
    """Every lazily imported name is also imported under ``TYPE_CHECKING`` from the same module."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(tooleval))
    typed: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            for stmt in node.body:
                assert isinstance(stmt, ast.ImportFrom)
                typed.update({alias.name: stmt.module for alias in stmt.names})
    assert typed == tooleval._LAZY


def test_version_comes_from_package_metadata():
    from importlib.metadata import version

    assert tooleval.__version__ == version("tooleval")
