"""tau-bench's ``r_actions``, predicted from the calls of a run.

tau-bench does not match calls: it replays the gold actions on a fresh
database and compares a hash of the whole database with the one the agent's
calls produced. What the calls can show of that, and what this profile does:

* Read-only tools change nothing, so they are left out on both sides (per
  domain: :data:`READ_ONLY`; ``transfer_to_human_agents`` only ends the
  episode, ``think`` and ``calculate`` touch no data).
* A state-changing call whose tool answered ``Error: ...`` changed nothing
  either (every tau-bench tool checks before it writes), so it is dropped; so
  is a call to a tool the domain does not have (tau-bench answers "Unknown
  action") and a call whose arguments could not be read.
* What remains must equal the gold state-changing actions as a multiset
  (order free: every write in these domains names the record it changes).
* Argument values compare as tau-bench's hash sees them: type-strict
  (``1`` differs from ``1.0`` and ``"1"``), lists in order, objects by key;
  except where the tool itself forgets the order or the value:
  :data:`SORTED_LISTS` (``item_ids`` of returns and exchanges are stored
  sorted), ``modify_pending_order_items`` (only the old→new item pairs
  matter) and the flight fields airline tools overwrite from the flight
  table (:data:`OVERWRITTEN_FLIGHT_KEYS`).

What no call shows (documented in docs/benchmarks/tau-bench.md): a write the tool
accepted but which leaves the database as the gold one would for another
reason, e.g. a refund amount computed from state, and writes that fail on
replay without an ``Error`` text in the transcript.

>>> gold = [ToolCall("return_delivered_order_items",
...                  {"order_id": "#W1", "item_ids": ["2", "1"], "payment_method_id": "p"})]
>>> calls = [ToolCall("get_order_details", {"order_id": "#W1"}),
...          ToolCall("return_delivered_order_items",
...                   {"order_id": "#W1", "item_ids": ["1", "2"], "payment_method_id": "p"})]
>>> compare_writes(gold, calls, domain="retail")["matched"]
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from tooleval.model import ToolCall

__all__ = [
    "DOMAINS",
    "OVERWRITTEN_FLIGHT_KEYS",
    "READ_ONLY",
    "SHARED_TOOLS",
    "SORTED_LISTS",
    "compare_writes",
    "domain_tools",
    "infer_domain",
    "state_key",
]

DOMAINS = ("airline", "retail")

READ_ONLY: dict[str, frozenset[str]] = {
    "airline": frozenset(
        {
            "calculate",
            "get_reservation_details",
            "get_user_details",
            "list_all_airports",
            "search_direct_flight",
            "search_onestop_flight",
            "think",
            "transfer_to_human_agents",
        }
    ),
    "retail": frozenset(
        {
            "calculate",
            "find_user_id_by_email",
            "find_user_id_by_name_zip",
            "get_order_details",
            "get_product_details",
            "get_user_details",
            "list_all_product_types",
            "think",
            "transfer_to_human_agents",
        }
    ),
}

# Tools that store these list arguments sorted (so their order is not state).
SORTED_LISTS: dict[str, tuple[str, ...]] = {
    "exchange_delivered_order_items": ("item_ids", "new_item_ids"),
    "return_delivered_order_items": ("item_ids",),
}
# modify_pending_order_items replaces item_ids[k] by new_item_ids[k]: the pairs are the state.
_PAIRED_LISTS: dict[str, tuple[str, str]] = {
    "modify_pending_order_items": ("item_ids", "new_item_ids"),
}
# book_reservation and update_reservation_flights overwrite these keys of each
# flight from the flight table, whatever the agent passed.
OVERWRITTEN_FLIGHT_KEYS = frozenset({"price", "origin", "destination"})
_FLIGHT_TOOLS = frozenset({"book_reservation", "update_reservation_flights"})

_WRITES: dict[str, frozenset[str]] = {
    "airline": frozenset(
        {
            "book_reservation",
            "cancel_reservation",
            "send_certificate",
            "update_reservation_baggages",
            "update_reservation_flights",
            "update_reservation_passengers",
        }
    ),
    "retail": frozenset(
        {
            "cancel_pending_order",
            "exchange_delivered_order_items",
            "modify_pending_order_address",
            "modify_pending_order_items",
            "modify_pending_order_payment",
            "modify_user_address",
            "return_delivered_order_items",
        }
    ),
}


# ``respond`` (a reply to the user, as tau-bench's gold may list it) changes no data.
for _domain in DOMAINS:
    READ_ONLY[_domain] = READ_ONLY[_domain] | {"respond"}
# Tools both domains have; every one of them is read-only in both.
SHARED_TOOLS = (READ_ONLY["airline"] | _WRITES["airline"]) & (
    READ_ONLY["retail"] | _WRITES["retail"]
)
READ_ONLY["shared"] = SHARED_TOOLS
_WRITES["shared"] = frozenset()


def domain_tools(domain: str) -> frozenset[str]:
    """Every tool name of a domain (``shared``: the ones both domains have)."""
    return READ_ONLY[domain] | _WRITES[domain]


def infer_domain(names: Sequence[str]) -> str | None:
    """``airline`` or ``retail`` from tool names only one domain has; None if unsure.

    >>> infer_domain(["get_user_details", "find_user_id_by_email"])
    'retail'
    >>> infer_domain(["get_user_details"]) is None
    True
    """
    seen = set(names)
    hits = [d for d in DOMAINS if seen & ((READ_ONLY[d] | _WRITES[d]) - SHARED_TOOLS)]
    return hits[0] if len(hits) == 1 else None


def _hashable(value: Any) -> Any:
    """tau-bench's ``to_hashable``: objects by sorted key, lists in order."""
    if isinstance(value, Mapping):
        return tuple(
            (str(k), _hashable(v)) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))
        )
    if isinstance(value, list | tuple):
        return tuple(_hashable(v) for v in value)
    return value


def _sort_key(value: Any) -> str:
    return repr(_hashable(value))


def state_key(call: ToolCall) -> str:
    """The text tau-bench's hash would see of one write: name + normalised arguments.

    >>> state_key(ToolCall("exchange_delivered_order_items",
    ...     {"order_id": "#W1", "item_ids": ["b", "a"], "new_item_ids": ["d", "c"],
    ...      "payment_method_id": "p"})) == state_key(ToolCall("exchange_delivered_order_items",
    ...     {"order_id": "#W1", "item_ids": ["a", "b"], "new_item_ids": ["c", "d"],
    ...      "payment_method_id": "p"}))
    True
    """
    args: Any = call.args
    if isinstance(args, Mapping):
        args = dict(args)
        for key in SORTED_LISTS.get(call.name, ()):
            if isinstance(args.get(key), list):
                args[key] = sorted(args[key], key=_sort_key)
        paired = _PAIRED_LISTS.get(call.name)
        if (
            paired
            and isinstance(args.get(paired[0]), list)
            and isinstance(args.get(paired[1]), list)
        ):
            old, new = args.pop(paired[0]), args.pop(paired[1])
            if len(old) == len(new):
                args["(pairs)"] = sorted(
                    ([o, n] for o, n in zip(old, new, strict=True)), key=_sort_key
                )
            else:
                args[paired[0]], args[paired[1]] = old, new
        if call.name in _FLIGHT_TOOLS and isinstance(args.get("flights"), list):
            args["flights"] = [
                {k: v for k, v in f.items() if k not in OVERWRITTEN_FLIGHT_KEYS}
                if isinstance(f, Mapping)
                else f
                for f in args["flights"]
            ]
    return f"{call.name}{_hashable(args)!r}"


def _left_over(
    calls: Sequence[tuple[int, ToolCall]], others: Sequence[tuple[int, ToolCall]]
) -> list[int]:
    """The indexes of ``calls`` whose state change no call of ``others`` makes (each used once).

    >>> a, b = ToolCall("cancel", {"id": 1}), ToolCall("cancel", {"id": 2})
    >>> _left_over([(0, a), (1, a), (2, b)], [(0, a)])
    [1, 2]
    """
    budget = Counter(state_key(c) for _, c in others)
    left: list[int] = []
    for i, c in calls:
        key = state_key(c)
        if budget[key] > 0:
            budget[key] -= 1
        else:
            left.append(i)
    return left


def compare_writes(
    expected: Sequence[ToolCall],
    actual: Sequence[ToolCall],
    *,
    domain: str,
    failed: Sequence[bool] | None = None,
) -> dict[str, Any]:
    """Gold writes vs the agent's effective writes, as multisets of :func:`state_key`.

    ``domain`` is ``airline``, ``retail`` or ``shared`` (only the tools both
    have, all read-only). ``failed[i]`` marks actual call ``i`` as answered with an error (dropped).
    Returns ``matched`` plus the indices of unmatched gold (``missing``) and
    actual (``extra``) writes, and counts of what was left out.
    """
    read_only = READ_ONLY[domain]
    known = domain_tools(domain)
    gold = [(i, c) for i, c in enumerate(expected) if c.name not in read_only]
    # tau-bench answers a name it does not know with "Unknown action ...": no change.
    unknown = [i for i, c in enumerate(actual) if c.name not in known]
    writes = [i for i, c in enumerate(actual) if c.name in known and c.name not in read_only]
    errored = [i for i in writes if failed and failed[i]]
    unreadable = [i for i in writes if actual[i].parse_error is not None]
    dropped = set(errored) | set(unreadable) | set(unknown)
    mine = [(i, c) for i, c in enumerate(actual) if c.name not in read_only and i not in dropped]
    missing = _left_over(gold, mine)
    extra = _left_over(mine, gold)
    return {
        "matched": not missing and not extra,
        "missing": missing,
        "extra": extra,
        "gold_writes": len(gold),
        "actual_writes": len(mine),
        "errored_writes": errored,
        "unreadable_writes": unreadable,
        "unknown_tool_calls": unknown,
        "read_only_calls": sum(1 for c in actual if c.name in read_only),
    }
