"""tau-bench's database for one replay: parsed once per domain, records copied when first read.

Parsing the 3 MB airline database again for every replay cost more than the
replay itself, and a replay reads or changes a handful of records. A
:class:`Database` gives tau-bench's tools the domain's tables as dict
subclasses over the shared, parsed originals: the first read of a record by
key copies it (the tools then change the copy), and the records a replay
touched are the only ones two replays need to compare
(:meth:`Footprint.same`), so the whole database is never dumped and hashed.

Iterating a table (``values()``, ``items()``) hands out the originals as
they are, without copying a table that a search only reads;
:meth:`Database.intact` then checks that every table iterated still dumps
to its pristine bytes. When one does not (a tool changed a record it reached
by iterating), the originals are parsed again and the replay runs once more
on a full copy of the data, so a verdict never depends on this sharing.

>>> shared = SharedTables.parse(b'{"users": {"u1": {"cash": 5}, "u2": {"cash": 1}}}')
>>> one, two = Database(shared), Database(shared)
>>> one.data["users"]["u1"]["cash"] -= 5
>>> two.data["users"]["u1"]["cash"], one.intact()
(5, True)
>>> one.footprint().same(two.footprint()), two.footprint().same(Database(shared).footprint())
(False, True)
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import orjson

__all__ = ["Database", "Footprint", "SharedTables", "canonical", "consistent_hash", "to_hashable"]

ABSENT = b""  # a record a replay deleted, or one the originals never had


def canonical(value: Any) -> bytes:
    """The canonical text of ``value`` (sorted keys), or tau-bench's own hash when not JSON.

    Two values have the same text exactly when tau-bench's ``to_hashable``
    tells them apart neither (same keys, lists in order, ``1`` unlike ``1.0``).

    >>> canonical({"b": 1, "a": [1.0]})
    b'{"a":[1.0],"b":1}'
    """
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # sets or non-text keys: tau-bench's own hash
        return b"tau:" + consistent_hash(value).encode()


def to_hashable(item: Any) -> Any:
    """tau-bench's ``to_hashable``: objects as sorted (key, value) tuples, lists as tuples."""
    if isinstance(item, dict):
        return tuple((key, to_hashable(value)) for key, value in sorted(item.items()))
    if isinstance(item, list):
        return tuple(to_hashable(element) for element in item)
    if isinstance(item, set):
        return tuple(sorted(to_hashable(element) for element in item))
    return item


def consistent_hash(data: Any) -> str:
    """tau-bench's data hash (sha256 of the text of ``to_hashable(data)``).

    >>> consistent_hash({"b": [1], "a": 1.0}) == consistent_hash({"a": 1.0, "b": [1]})
    True
    """
    return hashlib.sha256(str(to_hashable(data)).encode("utf-8")).hexdigest()


class SharedTables:
    """A domain's data parsed once: its tables (top-level objects), their pristine bytes."""

    def __init__(self, tables: dict[str, dict[str, Any]], pristine: dict[str, bytes]) -> None:
        self.tables = tables
        self.pristine = pristine
        self._canonical: dict[tuple[str, Any], bytes] = {}
        self._lock = threading.Lock()

    @classmethod
    def parse(cls, raw: bytes) -> SharedTables:
        """The tables of the JSON object ``raw`` (every top-level value an object)."""
        data = orjson.loads(raw)
        if not isinstance(data, dict) or not all(isinstance(t, dict) for t in data.values()):
            raise ValueError("a tau-bench database is an object of tables (objects)")
        return cls(data, {name: orjson.dumps(table) for name, table in data.items()})

    def original(self, table: str, key: Any) -> bytes:
        """The canonical text of a record as the originals hold it (ABSENT when they lack it)."""
        found = self._canonical.get((table, key))
        if found is None:
            rows = self.tables[table]
            found = canonical(rows[key]) if key in rows else ABSENT
            self._canonical[(table, key)] = found
        return found

    def intact(self, tables: dict[str, dict[str, Any]], names: Iterable[str]) -> bool:
        """Whether the tables ``names`` of ``tables`` still dump to their pristine bytes."""
        return all(orjson.dumps(tables[name]) == self.pristine[name] for name in names)

    def renew(self) -> None:
        """Parse every table again from its pristine bytes (after a tool changed an original)."""
        with self._lock:
            self.tables = {name: orjson.loads(raw) for name, raw in self.pristine.items()}
            self._canonical = {}


def _copy(value: Any) -> Any:
    if isinstance(value, dict | list):
        return orjson.loads(orjson.dumps(value))
    return value


class _Table(dict):  # type: ignore[type-arg]
    """One table: a record is copied from the originals the first time it is read by key.

    ``touched`` holds every key whose value may no longer be the original's
    (read by key, set, deleted); ``exposed`` says that the originals were
    handed out by iteration, so the replay checks them afterwards.
    """

    __slots__ = ("exposed", "touched")

    def __init__(self, originals: dict[str, Any]) -> None:
        dict.__init__(self, originals)
        self.touched: set[Any] = set()
        self.exposed = False

    def __getitem__(self, key: Any) -> Any:
        value = dict.__getitem__(self, key)
        if key not in self.touched:
            value = _copy(value)
            dict.__setitem__(self, key, value)
            self.touched.add(key)
        return value

    def get(self, key: Any, default: Any = None) -> Any:
        return self[key] if key in self else default  # noqa: SIM401 (get is this method)

    def __setitem__(self, key: Any, value: Any) -> None:
        dict.__setitem__(self, key, value)
        self.touched.add(key)

    def __delitem__(self, key: Any) -> None:
        dict.__delitem__(self, key)
        self.touched.add(key)

    def pop(self, key: Any, *default: Any) -> Any:
        if key in self:
            value = self[key]
            del self[key]
            return value
        if default:
            return default[0]
        raise KeyError(key)

    def popitem(self) -> tuple[Any, Any]:
        if not self:
            raise KeyError("popitem(): dictionary is empty")
        key = next(reversed(dict.keys(self)))
        return key, self.pop(key)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if key in self:
            return self[key]
        self[key] = default
        return default

    def update(self, *others: Any, **more: Any) -> None:
        for key, value in dict(*others, **more).items():
            self[key] = value

    def __ior__(self, other: Any) -> _Table:
        self.update(other)
        return self

    def __or__(self, other: Any) -> dict[Any, Any]:
        merged = self.copy()
        merged.update(other)
        return merged

    def clear(self) -> None:
        self.touched.update(dict.keys(self))
        dict.clear(self)

    def copy(self) -> dict[Any, Any]:
        return {key: self[key] for key in dict.keys(self)}

    def __iter__(self) -> Iterator[Any]:
        # overridden so that dict(table) and {**table} read through __getitem__
        return dict.__iter__(self)

    def values(self) -> Any:
        self.exposed = True
        return dict.values(self)

    def items(self) -> Any:
        self.exposed = True
        return dict.items(self)

    def __reduce_ex__(self, protocol: Any) -> Any:
        return (dict, (self.copy(),))


@dataclass(frozen=True, slots=True)
class Footprint:
    """What a replay left: the canonical text of each record it touched, by (table, key)."""

    shared: SharedTables
    records: dict[tuple[str, Any], bytes]

    def same(self, other: Footprint) -> bool:
        """Whether the two databases are equal (records neither touched are the originals)."""
        if other.shared is not self.shared:
            return False
        for where in self.records.keys() | other.records.keys():
            ours = self.records.get(where)
            theirs = other.records.get(where)
            if ours is None:
                ours = self.shared.original(*where)
            if theirs is None:
                theirs = self.shared.original(*where)
            if ours != theirs:
                return False
        return True


class Database:
    """One replay's data: ``data`` (what the tools get) over the shared originals."""

    def __init__(self, shared: SharedTables) -> None:
        self.shared = shared
        self._originals = shared.tables
        self._tables = {name: _Table(table) for name, table in self._originals.items()}
        self.data: dict[str, Any] = dict(self._tables)

    def intact(self) -> bool:
        """Whether every table this replay iterated still holds its pristine originals."""
        exposed = [name for name, table in self._tables.items() if table.exposed]
        return self.shared.intact(self._originals, exposed)

    def footprint(self) -> Footprint | None:
        """The records this replay touched, or None when a tool changed the top level itself."""
        if self.data.keys() != self._tables.keys() or any(
            self.data[name] is not table for name, table in self._tables.items()
        ):
            return None
        records: dict[tuple[str, Any], bytes] = {}
        for name, table in self._tables.items():
            for key in table.touched:
                records[(name, key)] = (
                    canonical(dict.__getitem__(table, key)) if key in table else ABSENT
                )
        return Footprint(self.shared, records)

    def plain(self) -> dict[str, Any]:
        """The data as plain dicts (the records as they are now; read it, never change it)."""
        return {
            name: dict(dict.items(value)) if isinstance(value, _Table) else value
            for name, value in self.data.items()
        }
