"""The tools an environment offers, as OpenAI tool specs (what an agent under test is shown).

An environment may say so itself (a ``tool_specs()`` method, as tau-bench's
domains do); a :class:`~tooleval.environments.FunctionEnvironment` or
:class:`~tooleval.environments.ClassEnvironment` has them derived from each
tool's signature and docstring: plain annotations (``str``, ``int``,
``float``, ``bool``, ``list``, ``dict``) give JSON types, parameters without
a default are required.

>>> from tooleval.environments import FunctionEnvironment
>>> def refund(state, order_id: str, amount: float = 0.0):
...     '''Refund an order.'''
>>> spec = tool_specs(FunctionEnvironment({"refund": refund}, initial_state={}), "shop")[0]
>>> spec["function"]["description"], spec["function"]["parameters"]["required"]
('Refund an order.', ['order_id'])
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from tooleval.errors import ConfigError

__all__ = ["tool_specs"]

_JSON_TYPES = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    list: "array",
    dict: "object",
}
_BY_NAME = {t.__name__: name for t, name in _JSON_TYPES.items()}


def tool_specs(environment: Any, name: str) -> list[dict[str, Any]]:
    """The OpenAI tool specs of ``environment`` (named ``name`` in errors)."""
    own = getattr(environment, "tool_specs", None)
    if callable(own):
        specs = own()
        if not isinstance(specs, list | tuple) or not all(isinstance(s, Mapping) for s in specs):
            raise ConfigError(
                f"environment {name!r}: tool_specs() must return a list of tool objects, got "
                f"{type(specs).__name__}",
                field="environment",
            )
        return [dict(s) for s in specs]
    signatures = getattr(environment, "tool_signatures", None)
    if not isinstance(signatures, Mapping):
        raise ConfigError(
            f"environment {name!r} ({type(environment).__name__}) does not list its tools "
            "(no tool_specs() method): give the connector's tools",
            field="connector.tools",
        )
    return [_spec(tool, *described) for tool, described in signatures.items()]


def _spec(name: str, signature: inspect.Signature, doc: str | None) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    required: list[str] = []
    for param in signature.parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        json_type = _json_type(param.annotation)
        properties[param.name] = {"type": json_type} if json_type else {}
        if param.default is param.empty:
            required.append(param.name)
    function: dict[str, Any] = {
        "name": name,
        "description": (doc or "").strip() or name,
        "parameters": {"type": "object", "properties": properties, "required": required},
    }
    return {"type": "function", "function": function}


def _json_type(annotation: Any) -> str | None:
    if isinstance(annotation, str):
        return _BY_NAME.get(annotation)
    return _JSON_TYPES.get(annotation)
