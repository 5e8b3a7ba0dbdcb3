"""Run fixtures: a real agent stub on 127.0.0.1 and a PostgreSQL server for the session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.agent_stub import AgentStub
from tests.pg_server import create_database


@pytest.fixture
def agent_stub() -> Iterator[AgentStub]:
    with AgentStub() as stub:
        yield stub


@pytest.fixture(scope="session")
def pg_url(postgres_cluster: str) -> str:
    """A database of the runs tests' own on the session's PostgreSQL server."""
    return create_database(postgres_cluster, "tooleval_runs")


@pytest.fixture
def temporary_metric():
    """Register metrics for one test only, so other areas never see them."""
    from tooleval.metrics import registry

    names: list[str] = []

    def register(info):
        registry.register_metric(info, replace_existing=True)
        names.append(info.name)
        return info

    yield register
    for name in names:
        # The registry has no public unregister; tests must not leak metrics
        # into suites that iterate over every registered metric.
        registry._metrics.pop(name, None)
