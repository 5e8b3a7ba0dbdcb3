"""Optional dependencies: which extra brings each, and the error that says so.

``pip install tooleval`` holds what ``tooleval score`` needs; live runs, the
run store and the connectors need the ``runs`` extra. A package that needs an
extra calls :func:`require` first, so a missing one is one clear error naming
the command to run, not a ``ModuleNotFoundError`` from deep inside.

>>> require("runs", "json")  # present: returns nothing
>>> try:
...     require("runs", "no_such_module_here")
... except MissingExtraError as exc:
...     print(exc)
this needs the tooleval[runs] extra (no_such_module_here is not installed): pip install 'tooleval[runs]'
"""

from __future__ import annotations

from importlib.util import find_spec

from tooleval.errors import MissingExtraError

# top-level module -> the extra that installs it (pyproject.toml [project.optional-dependencies])
EXTRA_OF = {
    "sqlalchemy": "runs",
    "alembic": "runs",
    "httpx": "runs",
    "aiohttp": "runs",
    "jsonpath": "runs",
    "pandas": "pandas",
}


def message(extra: str, module: str) -> str:
    return (
        f"this needs the tooleval[{extra}] extra ({module} is not installed): "
        f"pip install 'tooleval[{extra}]'"
    )


def require(extra: str, *modules: str) -> None:
    """Raise :class:`MissingExtraError` unless every one of ``modules`` can be imported."""
    for module in modules:
        if find_spec(module) is None:
            raise MissingExtraError(message(extra, module))


def for_missing(exc: ModuleNotFoundError) -> str | None:
    """The install hint for a missing module that an extra brings, or None."""
    top = (exc.name or "").partition(".")[0]
    extra = EXTRA_OF.get(top)
    return message(extra, top) if extra else None
