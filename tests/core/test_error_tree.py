"""Every exception class tooleval defines lives in ``tooleval/errors.py``, under ToolEvalError."""

from __future__ import annotations

import ast
import builtins
import importlib
from pathlib import Path

import pytest

import tooleval.errors as errors

SRC = Path(errors.__file__).resolve().parent

# Private control-flow signals, raised and caught inside one function's module; never seen
# by a caller, so they are not part of the public tree.
_INTERNAL = {
    ("matching/structural.py", "_Unfreezable"),
    ("judged/flow.py", "_Unparsable"),
    ("benchmarks/bfcl/multi_turn_env.py", "_Refused"),
    # Raised into a tool's thread when it runs past its deadline: a BaseException on
    # purpose, so a tool's own `except Exception` cannot swallow it; caught by replay.
    ("user_deadline.py", "CallTimeout"),
    # A call into user code past its deadline: caught where the call is made (state_match,
    # a callable matcher), which turns it into the row's reason.
    ("user_deadline.py", "DeadlinePassed"),
}

_BUILTIN_EXCEPTIONS = {
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
}


def _base_names(node: ast.ClassDef) -> set[str]:
    names = set()
    for base in node.bases:
        if isinstance(base, ast.Name):
            names.add(base.id)
        elif isinstance(base, ast.Attribute):
            names.add(base.attr)
    return names


def _exception_classes() -> list[tuple[str, str]]:
    classes: list[tuple[str, str, set[str]]] = []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                classes.append((path.relative_to(SRC).as_posix(), node.name, _base_names(node)))
    known = set(_BUILTIN_EXCEPTIONS) | {"ToolEvalError"}
    changed = True
    while changed:  # a class is an exception when one of its bases is
        changed = False
        for _, name, bases in classes:
            if name not in known and bases & known:
                known.add(name)
                changed = True
    return [(where, name) for where, name, _ in classes if name in known]


def test_every_exception_class_is_defined_in_errors_py() -> None:
    found = _exception_classes()
    assert ("errors.py", "ToolEvalError") in found  # the scan sees the tree itself
    outside = sorted(c for c in found if c[0] != "errors.py" and c not in _INTERNAL)
    assert outside == [], f"define these in tooleval/errors.py: {outside}"
    gone = sorted(c for c in _INTERNAL if c not in found)
    assert gone == [], f"no longer defined, drop them from _INTERNAL: {gone}"


def test_every_class_in_errors_py_is_in_the_tree_and_its_drawing() -> None:
    doc = errors.__doc__ or ""
    for name in errors.__all__:
        cls = getattr(errors, name)
        if not isinstance(cls, type):
            continue  # did_you_mean, the spelling hint of the messages
        assert issubclass(cls, errors.ToolEvalError), name
        assert f" {name} " in doc, f"{name} is missing from the tree drawn in errors.py"


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("tooleval.formats.json_limits", "NestingTooDeep"),
        ("tooleval.matching.partial_order", "SearchBudgetExceeded"),
        ("tooleval.store.leases", "RunBusyError"),
        ("tooleval.store", "RunBusyError"),
        ("tooleval.connectors.retry", "UnreadableBody"),
        ("tooleval.monitor.serve", "BodyError"),
        ("tooleval.benchmarks.bfcl.decode_python", "BfclDecodeError"),
    ],
)
def test_former_import_paths_give_the_same_class(module: str, name: str) -> None:
    assert getattr(importlib.import_module(module), name) is getattr(errors, name)


def test_errors_keep_their_former_behaviour() -> None:
    bfcl = errors.BfclDecodeError("bad text")
    assert isinstance(bfcl, ValueError) and bfcl.error_type == "ast_decoder:decoder_failed"
    body = errors.BodyError(413, "too large")
    assert (body.status, str(body)) == (413, "too large")
    budget = errors.SearchBudgetExceeded("too many steps", row=3)
    assert (budget.reason, str(budget)) == ("too many steps", "row 3: too many steps")
    assert issubclass(errors.RunBusyError, errors.StoreError)
    assert issubclass(errors.UnreadableBody, errors.ConnectorError)
    assert issubclass(errors.NestingTooDeep, errors.InputError)
