"""BFCL's simulated multi-turn APIs, driven by name, never by ``eval``.

BFCL executes a model's calls by turning each into Python text, prefixing
method names with an instance name and ``eval``-ing it. This module runs the
same calls on the same classes (from the installed ``bfcl-eval`` package,
Apache-2.0) without evaluating anything: a call is a method name looked up in
the entry's instances (public bound methods only, a later class in
``involved_classes`` winning a shared name, as BFCL maps them) and arguments
that are already values. What BFCL's execution answers is reproduced:

* a result is kept as text: ``str`` as is, a ``dict`` as ``json.dumps`` (its
  ``str`` when that fails), anything else ``str(value)``;
* a raised exception becomes ``"Error during execution: <message>"``; an
  unknown name the ``NameError`` text ``name 'x' is not defined``; BFCL's
  refused names (``kill``, ``exit``, ``quit``, ``remove``, ``unlink``,
  ``popen``, ``Popen``, ``run``) its refusal; an argument name that is not a
  Python identifier, or a keyword, a syntax error; a float ``inf``/``nan``
  the ``NameError`` its text would raise;
* in prompting mode an argument ``{name: {...}}`` whose values are all
  objects is a nested call, run first (BFCL's ``parse_nested_value``); an
  empty ``{}`` there makes the step undecodable.

Known differences (documented in docs/conformance.md): BFCL's ``eval`` also
reaches Python built-ins (``len(...)``) and rewrites ``name(`` inside string
arguments; tooleval does neither.

>>> apis = BfclApis(["MathAPI"], {}, long_context=False)
>>> apis.execute("add", {"a": 1, "b": 2})
'{"result": 3}'
>>> apis.execute("__import__", {"name": "os"})
"Error during execution: name '__import__' is not defined"
"""

from __future__ import annotations

import ast
import copy
import importlib
import inspect
import json
import keyword
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tooleval.errors import ConfigError, UndecodableStep
from tooleval.user_deadline import CallTimeout, deadline

__all__ = [
    "BLOCKED",
    "BfclApis",
    "UndecodableStep",
    "api_version",
    "parse_call_text",
]

#: Names BFCL refuses to run whatever the class.
BLOCKED = frozenset({"kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run"})
_PACKAGE = "bfcl_eval"
_CALL_SECONDS = 10.0


def api_version() -> str:
    """The installed ``bfcl-eval`` version (its simulated APIs and its data)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("bfcl-eval")
    except PackageNotFoundError:
        raise ConfigError(
            "BFCL multi-turn categories run on bfcl-eval's simulated APIs: "
            "pip install --no-deps bfcl-eval==2026.3.23 mpmath",
            field="format",
        ) from None


def load_classes(names: Iterable[str]) -> None:
    """Load bfcl-eval and the classes ``names`` (those it knows), or say what to install.

    A ConfigError names the missing package and the install, before any row is read.
    """
    try:
        from bfcl_eval.constants.executable_backend_config import CLASS_FILE_PATH_MAPPING
    except ImportError as exc:
        raise ConfigError(
            f"BFCL multi-turn categories run on bfcl-eval's simulated APIs, which do not "
            f"load here ({exc}): pip install --no-deps bfcl-eval==2026.3.23 mpmath",
            field="format",
        ) from None
    api_version()
    for name in sorted(n for n in names if n in CLASS_FILE_PATH_MAPPING):
        _class(name)


def _class(name: str) -> type:
    from bfcl_eval.constants.executable_backend_config import CLASS_FILE_PATH_MAPPING

    if name not in CLASS_FILE_PATH_MAPPING:
        raise ConfigError(
            f"unknown BFCL class {name!r} in involved_classes", field="involved_classes"
        )
    try:
        module = importlib.import_module(CLASS_FILE_PATH_MAPPING[name])
    except ImportError as exc:
        raise ConfigError(
            f"BFCL class {name} cannot load: {exc} (MathAPI needs mpmath: pip install mpmath)",
            field="involved_classes",
        ) from exc
    cls: type = getattr(module, name)
    return cls


class BfclApis:
    """The instances of one BFCL entry, set up from its ``initial_config``."""

    def __init__(
        self,
        involved_classes: Sequence[str],
        initial_config: Mapping[str, Any],
        *,
        long_context: bool,
    ) -> None:
        from bfcl_eval.constants.executable_backend_config import STATELESS_CLASSES

        self.instances: dict[str, Any] = {}
        self._methods: dict[str, Any] = {}
        for class_name in involved_classes:
            instance = _class(class_name)()
            if class_name not in STATELESS_CLASSES:
                config = copy.deepcopy(initial_config.get(class_name, {}))
                instance._load_scenario(config, long_context=long_context)
            self.instances[class_name] = instance
            for name, method in inspect.getmembers(instance, predicate=inspect.ismethod):
                if not name.startswith("_"):
                    self._methods[name] = method

    def execute(self, name: str, arguments: Mapping[str, Any], *, nested: bool = False) -> str:
        """What BFCL's execution answers for one call (always text, never raises)."""
        try:
            value = self._run(name, arguments, nested=nested)
        except UndecodableStep:
            raise
        except _Refused as exc:
            return f"Error during execution: {exc}"
        except CallTimeout:
            return f"Error during execution: {name} ran past {_CALL_SECONDS} s"
        except Exception as exc:
            return f"Error during execution: {exc}"
        return _as_text(value)

    def _run(self, name: str, arguments: Mapping[str, Any], *, nested: bool) -> Any:
        if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
            raise _Refused(f"invalid syntax in function name {name!r}")
        if name in BLOCKED:
            raise _Refused(f"Function call {name} is not allowed.")
        method = self._methods.get(name)
        if method is None:
            raise _Refused(f"name {name!r} is not defined")
        values: dict[str, Any] = {}
        for key, value in arguments.items():
            if not isinstance(key, str) or not key.isidentifier() or keyword.iskeyword(key):
                raise _Refused("invalid syntax (<string>, line 1)")
            values[key] = self._value(value, nested=nested)
        with deadline(_CALL_SECONDS):
            return method(**values)

    def _value(self, value: Any, *, nested: bool) -> Any:
        _check_finite(value)
        if nested and isinstance(value, dict):
            if all(isinstance(v, dict) for v in value.values()):
                if not value:
                    raise UndecodableStep("an empty object where a nested call was read")
                inner_name, inner_args = next(iter(value.items()))
                return self._run(inner_name, inner_args, nested=True)
            return {str(k): self._value(v, nested=True) for k, v in value.items()}
        return value

    def run_text(self, text: str) -> str:
        """Run one ground-truth call written as Python text (``cd(folder='x')``)."""
        try:
            name, args, kwargs = parse_call_text(text)
        except ValueError as exc:
            return f"Error during execution: {exc}"
        method = self._methods.get(name)
        if name in BLOCKED or method is None:
            return self.execute(name, kwargs)
        try:
            with deadline(_CALL_SECONDS):
                value = method(*args, **kwargs)
        except CallTimeout:
            return f"Error during execution: {name} ran past {_CALL_SECONDS} s"
        except Exception as exc:
            return f"Error during execution: {exc}"
        return _as_text(value)


class _Refused(Exception):
    """The call does not reach a method (BFCL's eval would raise before calling)."""


def _check_finite(value: Any, depth: int = 0) -> None:
    if depth > 100:
        return
    if isinstance(value, float) and not math.isfinite(value):
        raise _Refused(f"name {'nan' if math.isnan(value) else 'inf'!r} is not defined")
    if isinstance(value, list | tuple | set):
        for item in value:
            _check_finite(item, depth + 1)
    elif isinstance(value, dict):
        for item in value.values():
            _check_finite(item, depth + 1)


def _as_text(value: Any) -> str:
    if type(value) is str:
        return value
    if type(value) is dict:
        try:
            return json.dumps(value)
        except Exception:
            return str(value)
    return str(value)


def parse_call_text(text: str) -> tuple[str, list[Any], dict[str, Any]]:
    """(name, positional values, keyword values) of ``f(a, b=1)``: literals only, never evaluated.

    >>> parse_call_text("mv(source='a.txt', destination='b')")
    ('mv', [], {'source': 'a.txt', 'destination': 'b'})
    >>> parse_call_text("__import__('os').system('x')")
    Traceback (most recent call last):
    ValueError: not a call of a plain name: "__import__('os').system('x')"
    """
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise ValueError(f"not a Python call: {text[:80]!r}") from None
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise ValueError(f"not a call of a plain name: {text[:80]!r}")
    try:
        args = [ast.literal_eval(a) for a in node.args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg is not None}
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        raise ValueError(f"arguments are not literals: {text[:80]!r}") from None
    if any(k.arg is None for k in node.keywords):
        raise ValueError(f"** arguments are not supported: {text[:80]!r}")
    return node.func.id, args, kwargs
