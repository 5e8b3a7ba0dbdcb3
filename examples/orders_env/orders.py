"""An order-management environment: four tools over one dict of orders.

Used by ``cases.jsonl``, ``plan.yaml`` and docs/environments.md. The tools
are plain functions taking the state first; tooleval calls them by name and
checks their arguments against these signatures.
"""

from __future__ import annotations

from typing import Any

from tooleval.environments import FunctionEnvironment

INITIAL_STATE: dict[str, Any] = {
    "orders": {
        "W1": {"status": "pending", "items": ["lamp"], "address": "1 Main St", "refunded": 0},
        "W2": {
            "status": "delivered",
            "items": ["desk", "chair"],
            "address": "9 Elm Rd",
            "refunded": 0,
        },
    }
}


def get_order(state: dict[str, Any], order_id: str) -> dict[str, Any]:
    order = state["orders"].get(order_id)
    if order is None:
        raise KeyError(f"no order {order_id}")
    return dict(order)


def cancel_order(state: dict[str, Any], order_id: str) -> str:
    order = state["orders"][order_id]
    if order["status"] != "pending":
        return f"Error: order {order_id} is {order['status']}, only pending orders can be cancelled"
    order["status"] = "cancelled"
    return f"order {order_id} cancelled"


def update_address(state: dict[str, Any], order_id: str, address: str) -> str:
    state["orders"][order_id]["address"] = address
    return f"order {order_id} ships to {address}"


def refund(state: dict[str, Any], order_id: str, amount: float) -> str:
    order = state["orders"][order_id]
    if order["status"] != "delivered":
        return f"Error: order {order_id} is not delivered"
    order["refunded"] = order["refunded"] + amount
    return f"refunded {amount} on {order_id}"


TOOLS = {
    "get_order": get_order,
    "cancel_order": cancel_order,
    "update_address": update_address,
    "refund": refund,
}


def make_environment(config: dict[str, Any]) -> FunctionEnvironment:
    """The factory tooleval calls (``config`` is the row's ``metadata.environment.config``)."""
    return FunctionEnvironment(TOOLS, initial_state=config.get("initial_state", INITIAL_STATE))
