"""Fixtures for connector tests: a real agent stub on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.agent_stub import AgentStub


@pytest.fixture
def agent_stub() -> Iterator[AgentStub]:
    with AgentStub() as stub:
        yield stub
