"""Load the hand-written fixtures next to this file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"


def load(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text())


def rows(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (FIXTURES / name).read_text().splitlines() if line.strip()]


def dicts(messages) -> list[dict[str, Any]]:
    """Messages as canonical dicts: equality that ignores how arguments were spelled."""
    return [m.to_dict() for m in messages]
