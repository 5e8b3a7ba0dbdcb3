"""Environments by name: what a row, a plan or the command line can point at.

A *factory* is a callable ``factory(config) -> Environment`` (``config`` a
dict, ``{}`` when none is given). Factories come from
:func:`register_environment`, from the entry-point group
``tooleval.environments`` (a package declares
``orders = "mypkg.env:make_orders"``), or, only where the user writes the
option themselves (a plan, ``--option environment=...``), from an import path
``"module:attribute"`` or a file ``"path/to/file.py:attribute"`` (relative
to the working directory). A dataset row may only name a registered or declared
environment: data never makes tooleval import a module.

>>> from tooleval.environments.python import FunctionEnvironment
>>> register_environment("kv", lambda config: FunctionEnvironment(
...     {"put": lambda s, k, v: s.update({k: v})}, initial_state=dict(config)))
>>> environment_factory("kv")({"a": 1}).state()
{'a': 1}
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from tooleval.environments.protocol import Environment
from tooleval.errors import ConfigError, did_you_mean

__all__ = ["ENTRY_POINT_GROUP", "Factory", "environment_factory", "register_environment"]

ENTRY_POINT_GROUP = "tooleval.environments"

Factory = Callable[[Mapping[str, Any]], Environment]

_factories: dict[str, Factory] = {}
_lock = threading.Lock()


def register_environment(name: str, factory: Factory) -> None:
    """Make ``factory`` available as ``name`` (replacing an earlier one of that name)."""
    if not isinstance(name, str) or not name or ":" in name:
        raise ConfigError(f"environment name must be non-empty text without ':', got {name!r}")
    if not callable(factory):
        raise ConfigError(f"environment {name!r}: factory is not callable")
    with _lock:
        _factories[name] = factory


def _declared(name: str) -> Factory | None:
    from tooleval.plugins import entry_points

    for point in entry_points(ENTRY_POINT_GROUP):
        if point.name == name:
            try:
                loaded: Factory = point.load()
            except Exception as exc:
                raise ConfigError(
                    f"environment {name!r} ({point.value}) failed to load: "
                    f"{type(exc).__name__}: {exc}",
                    field="environment",
                ) from exc
            return loaded
    return None


def _declared_names() -> set[str]:
    from tooleval.plugins import entry_points

    return {point.name for point in entry_points(ENTRY_POINT_GROUP)}


def environment_factory(spec: str, *, allow_import: bool = False) -> Factory:
    """The factory ``spec`` names; ``allow_import`` also reads ``"module:attribute"``."""
    if not isinstance(spec, str) or not spec:
        raise ConfigError(f"an environment is named by text, got {spec!r}", field="environment")
    with _lock:
        found = _factories.get(spec)
    if found is None and ":" not in spec:
        found = _declared(spec)
    if found is None and ":" in spec:
        if not allow_import:
            raise ConfigError(
                f"environment {spec!r}: a row may not name a module to import; register the "
                "environment or name it in the plan / --metric-param",
                field="environment",
            )
        found = _imported(spec)
    if found is None:
        with _lock:
            names = set(_factories)
        names |= _declared_names()
        known = ", ".join(sorted(names)) or "none registered"
        raise ConfigError(
            f"unknown environment {spec!r}{did_you_mean(spec, names)} (known: {known}); "
            f"register it with register_environment, declare it in entry-point group "
            f"{ENTRY_POINT_GROUP!r}, or give 'module:attribute'",
            field="environment",
        )
    return found


_imports: dict[str, Factory] = {}


def _imported(spec: str) -> Factory:
    with _lock:
        if spec in _imports:
            return _imports[spec]
    found = _import(spec)
    with _lock:
        _imports[spec] = found
    return found


def _load_module(module_name: str) -> Any:
    if not module_name.endswith(".py"):
        return importlib.import_module(module_name)
    path = Path(module_name).resolve()
    if not path.is_file():
        raise FileNotFoundError(f"no file {path}")
    loader_spec = importlib.util.spec_from_file_location(f"tooleval_environment_{path.stem}", path)
    if loader_spec is None or loader_spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(loader_spec)
    folder = str(path.parent)
    if folder not in sys.path:  # the file's own imports (a module beside it) resolve
        sys.path.insert(0, folder)
    loader_spec.loader.exec_module(module)
    return module


def _import(spec: str) -> Factory:
    module_name, _, attribute = spec.rpartition(":")
    try:
        module = _load_module(module_name)
    except Exception as exc:
        raise ConfigError(
            f"environment {spec!r}: cannot import {module_name!r}: {type(exc).__name__}: {exc}",
            field="environment",
        ) from exc
    factory: Any = module
    for part in attribute.split("."):
        if not part or part.startswith("_"):
            raise ConfigError(f"environment {spec!r}: {part!r} is not a public name")
        factory = getattr(factory, part, None)
        if factory is None:
            raise ConfigError(f"environment {spec!r}: {module_name} has no {attribute!r}")
    if not callable(factory):
        raise ConfigError(f"environment {spec!r} is not callable", field="environment")
    found: Factory = factory
    return found
