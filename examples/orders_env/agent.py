"""A scripted stand-in for an agent (the plan's python connector): reads the request, calls tools.

It makes the mistakes state_match is there to see: it re-reads orders, and it
refunds a pending order (the tool refuses, nothing changes).
"""

from __future__ import annotations

import re
from typing import Any


def run(text: str) -> dict[str, Any]:
    order = re.search(r"\bW\d+\b", text)
    order_id = order.group(0) if order else "W0"
    calls: list[dict[str, Any]] = [{"name": "get_order", "args": {"order_id": order_id}}]
    if "cancel" in text:
        calls.append({"name": "cancel_order", "args": {"order_id": order_id}})
        calls.append({"name": "get_order", "args": {"order_id": order_id}})  # checks again
    if "address" in text:
        address = text.split(" to ", 1)[-1].strip()
        calls.append({"name": "update_address", "args": {"order_id": order_id, "address": address}})
    amount = re.search(r"refund (\d+)", text)
    if amount:
        calls.append(
            {"name": "refund", "args": {"order_id": order_id, "amount": float(amount.group(1))}}
        )
    return {"output": "done", "tool_calls": calls}
