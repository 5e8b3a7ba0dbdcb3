"""Replay tool calls on an environment and compare the states they leave.

=================  ===========================================================
module             holds
=================  ===========================================================
``protocol``       :class:`Environment` (reset / call / state), :class:`CallOutcome`, :class:`Limits`
``python``         :class:`FunctionEnvironment` (functions over a state), :class:`ClassEnvironment`
``replay``         :func:`replay`, :class:`Replay`
``diff``           :func:`state_diff`, :class:`Difference`
``metric``         :func:`state_match`
``named``          environments by name: :func:`register_environment`, entry points
``registration``   ``state_match`` as the metric registry lists it (each call under a deadline)
=================  ===========================================================

>>> env = FunctionEnvironment({"put": lambda s, k, v: s.update({k: v})}, initial_state={})
>>> replay(env, [ToolCall("put", {"k": "a", "v": 1})]).state
{'a': 1}
"""

from tooleval.environments.diff import Difference, state_diff
from tooleval.environments.metric import state_match
from tooleval.environments.named import environment_factory, register_environment
from tooleval.environments.protocol import CallOutcome, Environment, Limits
from tooleval.environments.python import ClassEnvironment, FunctionEnvironment
from tooleval.environments.replay import Replay, replay
from tooleval.model import ToolCall

__all__ = [
    "CallOutcome",
    "ClassEnvironment",
    "Difference",
    "Environment",
    "FunctionEnvironment",
    "Limits",
    "Replay",
    "ToolCall",
    "environment_factory",
    "register_environment",
    "replay",
    "state_diff",
    "state_match",
]
