"""The real Store satisfies the StoreReader / StoreWriter protocols, signature for signature."""

from __future__ import annotations

import inspect

import pytest

from tooleval.store import (
    AggregateStore,
    RunRowsReader,
    Store,
    StoreReader,
    StoreWriter,
    open_store,
)
from tooleval.store.aggregates import RunAggregates


def _protocol_methods(protocol: type) -> list[str]:
    return [
        name
        for name, value in vars(protocol).items()
        if inspect.isfunction(value) and not name.startswith("_")
    ]


@pytest.fixture
def store():
    opened = open_store("sqlite:///:memory:")
    yield opened
    opened.close()


def test_store_is_a_reader_and_a_writer(store):
    assert isinstance(store, StoreReader)
    assert isinstance(store, StoreWriter)
    assert isinstance(store, RunRowsReader)
    reader: StoreReader = store  # checked by mypy when the tests are type-checked
    assert reader.list_runs() == []


@pytest.mark.parametrize("protocol", [StoreReader, StoreWriter])
def test_protocol_signatures_match_the_store(protocol):
    names = _protocol_methods(protocol)
    assert names, "a protocol with no method checks nothing"
    for name in names:
        declared = inspect.signature(getattr(protocol, name))
        actual = inspect.signature(getattr(Store, name))
        assert str(declared) == str(actual), f"{protocol.__name__}.{name}: {declared} != {actual}"


def test_aggregate_protocol_matches_the_store_aggregates(store):
    assert isinstance(store.aggregates, AggregateStore)
    names = _protocol_methods(AggregateStore)
    assert names
    for name in names:
        declared = inspect.signature(getattr(AggregateStore, name))
        actual = inspect.signature(getattr(RunAggregates, name))
        assert str(declared) == str(actual), f"AggregateStore.{name}: {declared} != {actual}"
    public = {n for n in vars(RunAggregates) if not n.startswith("_")}
    assert public == set(names), "RunAggregates and AggregateStore list different methods"


def test_an_object_missing_a_read_method_is_not_a_reader(store):
    class Partial:
        def get_run(self, run_id: str):
            return store.get_run(run_id)

    assert not isinstance(Partial(), StoreReader)
