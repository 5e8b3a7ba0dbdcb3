"""The contract every argument matcher follows.

A matcher compares one expected argument value with the actual one and
returns a similarity in [0, 1] (1.0 means "matches"). When the agent did not
pass the key at all, ``actual`` is the :data:`MISSING` sentinel, so a matcher
can accept omission (BFCL's "may be omitted") or reject it.

>>> MISSING
MISSING
>>> bool(MISSING)
False
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from tooleval.model.values import MISSING

__all__ = ["MISSING", "Matcher"]


@runtime_checkable
class Matcher(Protocol):
    """``matcher(expected, actual) -> float in [0, 1]``; ``actual`` may be MISSING.

    Matchers also carry a short ``name`` used in diagnoses and stored params.
    """

    @property
    def name(self) -> str: ...  # read-only: frozen dataclasses satisfy it

    def __call__(self, expected: Any, actual: Any) -> float: ...
