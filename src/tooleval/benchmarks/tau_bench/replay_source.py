"""tau-bench's domain tools and data, read from its source without importing the package.

Importing ``tau_bench`` pulls ``litellm`` (its user simulator) and
``pydantic``; replay needs neither. The tools (``envs/<domain>/tools/*.py``,
each a class with a static ``invoke(data, **kwargs)``) and the data loader
(``envs/<domain>/data/__init__.py``) use only the standard library, so they
are loaded from the source folder one file at a time, with their one
package import (``tau_bench.envs.tool.Tool``) answered by the loader. This
runs tau-bench's own code: point it only at a tau-bench checkout you trust.

Where the source is: the ``source`` argument (``tooleval score --data DIR``),
else ``$TOOLEVAL_TAU_BENCH_SOURCE``, else an installed ``tau_bench`` package
(found, not imported). A source's
``version`` is a hash of its tool and data files, so a result says which
environment it was replayed on.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import importlib.util
import os
import threading
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from tooleval.benchmarks.tau_bench.database import SharedTables
from tooleval.errors import ConfigError

__all__ = [
    "DOMAINS",
    "ENV_VARIABLE",
    "TauDomain",
    "domain_versions",
    "find_source",
    "load_domain",
]

DOMAINS = ("airline", "retail")
ENV_VARIABLE = "TOOLEVAL_TAU_BENCH_SOURCE"


def find_source(source: str | Path | None = None) -> Path:
    """The folder that holds ``tau_bench/envs`` (ConfigError saying how to give one)."""
    candidates: list[Path] = []
    if source is not None:
        candidates.append(Path(source))
    elif os.environ.get(ENV_VARIABLE):
        candidates.append(Path(os.environ[ENV_VARIABLE]))
    else:
        spec = importlib.util.find_spec("tau_bench")
        if spec is not None and spec.submodule_search_locations:
            candidates.append(Path(next(iter(spec.submodule_search_locations))).parent)
    for path in candidates:
        if (path / "tau_bench" / "envs").is_dir():
            return path
        if path.name == "tau_bench" and (path / "envs").is_dir():
            return path.parent
    where = candidates[0] if candidates else None
    raise ConfigError(
        "tau-bench's environment is not available"
        + (f" at {where}" if where else "")
        + f": give its source folder (--data DIR, or ${ENV_VARIABLE}) holding tau_bench/envs",
        field="tau_bench_source",
    )


@dataclass(frozen=True)
class TauDomain:
    """One domain: its tools by name, terminating tools, fresh data, and version.

    ``shared`` is the data parsed once, that each replay's
    :class:`~tooleval.benchmarks.tau_bench.database.Database` copies from
    record by record (None when the data is not an object of tables).
    """

    name: str
    tools: dict[str, Callable[..., Any]]
    terminate_tools: frozenset[str]
    version: str
    source: Path
    _data: bytes
    shared: SharedTables | None = None
    #: Each tool's ``get_info()`` (an OpenAI tool spec), in ALL_TOOLS order: what an agent is offered.
    tool_specs: tuple[dict[str, Any], ...] = ()

    def fresh_data(self) -> dict[str, Any]:
        """A new copy of the domain's data, as ``load_data()`` returns it."""
        data: dict[str, Any] = orjson.loads(self._data)
        return data


_cache: dict[tuple[str, str], TauDomain] = {}
_lock = threading.Lock()


def load_domain(domain: str, source: str | Path | None = None) -> TauDomain:
    """The ``domain`` (airline or retail) of the tau-bench source at ``source`` (cached)."""
    if domain not in DOMAINS:
        raise ConfigError(f"tau-bench domain must be one of {', '.join(DOMAINS)}, got {domain!r}")
    root = find_source(source)
    key = (str(root.resolve()), domain)
    with _lock:
        if key not in _cache:
            _cache[key] = _load(root, domain)
        return _cache[key]


def _load(root: Path, domain: str) -> TauDomain:
    folder = root / "tau_bench" / "envs" / domain
    tool_base = _module(root / "tau_bench" / "envs" / "tool.py", "tool", {})
    tools, specs = _tools(folder / "tools", tool_base)
    data_module = _module(folder / "data" / "__init__.py", f"{domain}.data", {})
    data = data_module.load_data()
    try:
        raw = orjson.dumps(data)
    except TypeError as exc:
        raise ConfigError(f"tau-bench {domain} data is not JSON: {exc}") from exc
    try:
        shared: SharedTables | None = SharedTables.parse(raw)
    except ValueError:
        shared = None
    return TauDomain(
        domain,
        tools,
        _terminate_tools(folder / "env.py"),
        _version(folder),
        root,
        raw,
        shared,
        tool_specs=specs,
    )


def _module(path: Path, name: str, provided: dict[str, Any]) -> types.ModuleType:
    """Run one source file as a module; ``tau_bench.envs.tool`` is answered from ``provided``."""
    if not path.is_file():
        raise ConfigError(f"tau-bench source file missing: {path}", field="tau_bench_source")
    module = types.ModuleType(f"tooleval_tau_bench.{name}")
    module.__file__ = str(path)

    def imports(
        name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0
    ) -> Any:
        if name in provided:
            return provided[name]
        if level or name.split(".")[0] == "tau_bench":
            raise ImportError(f"{path.name} imports {name!r}, which replay does not load")
        return builtins.__import__(name, globals, locals, fromlist, level)

    module.__dict__["__builtins__"] = {**vars(builtins), "__import__": imports}
    code = compile(path.read_text(encoding="utf-8"), str(path), "exec")
    exec(code, module.__dict__)  # noqa: S102  (tau-bench's own source, never model output)
    return module


def _tools(
    folder: Path, tool_base: types.ModuleType
) -> tuple[dict[str, Callable[..., Any]], tuple[dict[str, Any], ...]]:
    """ALL_TOOLS of the folder's ``__init__.py``, each loaded from its own file, and their specs."""
    tree = ast.parse((folder / "__init__.py").read_text(encoding="utf-8"))
    module_of: dict[str, str] = {}
    listed: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            for alias in node.names:
                module_of[alias.asname or alias.name] = node.module
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.List)
            and any(isinstance(t, ast.Name) and t.id == "ALL_TOOLS" for t in node.targets)
        ):
            listed = [e.id for e in node.value.elts if isinstance(e, ast.Name)]
    provided = {"tau_bench.envs.tool": tool_base}
    tools: dict[str, Callable[..., Any]] = {}
    specs: list[dict[str, Any]] = []
    for class_name in listed:
        module = _module(folder / f"{module_of[class_name]}.py", module_of[class_name], provided)
        cls = getattr(module, class_name)
        info = cls.get_info()
        tools[info["function"]["name"]] = cls.invoke
        specs.append(info)
    if not tools:
        raise ConfigError(
            f"no ALL_TOOLS found in {folder / '__init__.py'}", field="tau_bench_source"
        )
    return tools, tuple(specs)


def _terminate_tools(env_file: Path) -> frozenset[str]:
    """The ``self.terminate_tools = [...]`` of the domain's env.py (read, not run)."""
    for node in ast.walk(ast.parse(env_file.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Attribute) and t.attr == "terminate_tools" for t in node.targets
        ):
            value = ast.literal_eval(node.value)
            return frozenset(str(v) for v in value)
    return frozenset()


def domain_versions(root: Path) -> dict[str, str]:
    """The environment version of each domain the source at ``root`` holds (files hashed, not run)."""
    envs = root / "tau_bench" / "envs"
    return {d: _version(envs / d) for d in DOMAINS if (envs / d / "tools").is_dir()}


def _version(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for sub in ("tools", "data") for p in (folder / sub).glob("*")):
        if path.suffix in (".py", ".json"):
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return "sha256:" + digest.hexdigest()[:16]
