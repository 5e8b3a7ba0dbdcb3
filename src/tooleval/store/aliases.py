"""Run references a person types: ``latest``, ``-N`` and id prefixes, resolved in one place.

``latest`` (or ``last``) is the newest run, ``-1`` the same, ``-2`` the one
before it, and so on (newest first, as ``tooleval runs list`` prints them);
anything else is a run id or a unique prefix of one.
:meth:`tooleval.store.Store.resolve_run_id` answers through
:func:`resolve_run_ref`, so every CLI command that takes a run id and the
viewer's URLs accept the same references.

>>> alias_position("latest"), alias_position("-3"), alias_position("2026-11")
(0, 2, None)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from tooleval.errors import StoreError

__all__ = ["ALIASES_HELP", "alias_position", "resolve_run_ref"]

ALIASES_HELP = (
    "a run id, a unique prefix of one, latest, or -N (-1 the newest run, -2 the one before)"
)
_NTH = re.compile(r"^-([1-9][0-9]{0,5})$")


def alias_position(ref: str) -> int | None:
    """The 0-based place (newest first) a ``latest`` / ``-N`` reference names; None for ids."""
    text = ref.strip().lower()
    if text in ("latest", "last"):
        return 0
    found = _NTH.match(text)
    return int(found[1]) - 1 if found else None


def resolve_run_ref(
    ref: str,
    *,
    newest: Callable[[int], Sequence[str]],
    by_prefix: Callable[[str], str],
    where: str,
) -> str:
    """The run id ``ref`` names: ``newest(n)`` lists the n newest ids, ``by_prefix`` the rest.

    >>> ids = ["c", "b", "a"]
    >>> resolve_run_ref("-2", newest=lambda n: ids[:n], by_prefix=str, where="here")
    'b'
    >>> resolve_run_ref("-9", newest=lambda n: ids[:n], by_prefix=str, where="here")
    Traceback (most recent call last):
    ...
    tooleval.errors.StoreError: field run: -9 names the 9th newest run, but here holds 3 runs; `tooleval runs list` shows them
    """
    position = alias_position(ref)
    if position is None:
        return by_prefix(ref)
    ids = newest(position + 1)
    if len(ids) > position:
        return ids[position]
    if not ids:
        raise StoreError(
            f"{ref} names the newest run, but {where} holds no run yet; start one with "
            "`tooleval run PLAN`",
            field="run",
        )
    nth = {1: "1st", 2: "2nd", 3: "3rd"}.get(position + 1, f"{position + 1}th")
    raise StoreError(
        f"{ref} names the {nth} newest run, but {where} holds {len(ids)} "
        f"run{'s' if len(ids) != 1 else ''}; `tooleval runs list` shows them",
        field="run",
    )
