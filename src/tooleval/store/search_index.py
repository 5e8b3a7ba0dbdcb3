"""The full-text index behind the row search (``search=`` / the viewer's ``q``).

The search keeps one meaning on every backend: a row matches when its row id,
input, output, error, calls made (tool names and argument values, as JSON
text) or sample (the expected calls) contains the searched text, ignoring
ASCII case. That is the ``LIKE`` test of :func:`like_condition`; the index
only narrows the rows it has to run on:

- SQLite: an FTS5 table ``rows_fts`` with the ``trigram`` tokenizer (substring
  matching, SQLite 3.34+) over the same six columns, *external content* (it
  keeps no copy of the text, only the index), filled by triggers on every
  insert, update and delete of ``rows``. A search of 3 or more characters
  reads its candidates from the index, then checks them with ``LIKE``; a
  shorter one (trigrams cannot index it) scans.
- PostgreSQL: one ``pg_trgm`` GIN index per searched column on
  ``lower(column)``, which the planner uses for ``LIKE '%text%'`` directly
  (skipped, with the scan left as it was, when the server has no ``pg_trgm``).

Both are created by store migration 5, which also indexes the rows already
stored.

>>> fts_phrase("tool 5503")
'"tool 5503"'
>>> len(fts_phrase('a"b'))  # a quote inside is doubled
6
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.visitors import InternalTraversal

from tooleval.store import schema as t

__all__ = [
    "FTS_TABLE",
    "SEARCHED_COLUMNS",
    "create_search_index",
    "dense_search",
    "fts_phrase",
    "like_condition",
    "run_key",
    "search_condition",
    "searched_text",
    "uses_index",
]

FTS_TABLE = "rows_fts"
# The columns of ``rows`` the search reads, in the FTS table's column order.
SEARCHED_COLUMNS = ("row_id", "input", "output", "error", "tools_called", "sample")
# JSON columns are searched as their text.
_JSON_COLUMNS = {"tools_called", "sample"}
# The trigram tokenizer indexes runs of 3 characters: shorter text cannot be looked up.
_MIN_INDEXED = 3


def fts_phrase(text: str) -> str:
    """``text`` as one FTS5 string (a substring query with the trigram tokenizer)."""
    return '"' + text.replace('"', '""') + '"'


def searched_text(search: str | None) -> str:
    r"""The text a search looks for: ``search`` less NUL characters.

    PostgreSQL stores no NUL (the store drops them on write) and cannot take
    one in a query; SQLite's LIKE and FTS5 stop reading at one.

    >>> searched_text("a\x00b")
    'ab'
    """
    return (search or "").replace("\x00", "")


def like_condition(search: str) -> sa.ColumnElement[bool]:
    """The search's meaning: some searched column contains ``search`` (ASCII case ignored)."""
    from tooleval.store.queries import escape_like

    pattern = f"%{escape_like(searched_text(search).lower())}%"
    rows = t.rows.c
    columns = [
        sa.cast(rows[name], sa.Text) if name in _JSON_COLUMNS else rows[name]
        for name in SEARCHED_COLUMNS
    ]
    return sa.or_(*(sa.func.lower(c).like(pattern, escape="\\") for c in columns))


class _FtsCandidates(sa.sql.expression.ColumnElement[bool]):
    """SQLite: the row is among the index's candidates for the phrase; elsewhere: true.

    ``walk``: the candidates only test the rows an index walk of the run
    reaches (``+rows.rowid``), instead of driving the query.
    """

    # Not Boolean: SQLite would compare it "= 1", which keeps the rowid IN off the index.
    type: Any = sa.types.NullType()
    inherit_cache = True
    _traverse_internals = [
        ("phrase", InternalTraversal.dp_clauseelement),
        ("walk", InternalTraversal.dp_boolean),
    ]

    def __init__(self, phrase: str, *, walk: bool = False) -> None:
        self.phrase = sa.bindparam("fts_phrase", phrase, type_=sa.String, unique=True)
        self.walk = walk


@compiles(_FtsCandidates)
def _candidates_default(element: _FtsCandidates, compiler: Any, **kw: Any) -> str:
    return "1 = 1"


@compiles(_FtsCandidates, "sqlite")
def _candidates_sqlite(element: _FtsCandidates, compiler: Any, **kw: Any) -> str:
    phrase = compiler.process(element.phrase, **kw)
    rowid = "+rows.rowid" if element.walk else "rows.rowid"
    return f"{rowid} IN (SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH {phrase})"


class _NotIndexed(sa.sql.expression.ColumnElement[Any]):
    """A column SQLite must not pick an index for (``+column``); the column elsewhere."""

    inherit_cache = True
    _traverse_internals = [("column", InternalTraversal.dp_clauseelement)]

    def __init__(self, column: Any) -> None:
        self.column = column
        self.type = column.type


@compiles(_NotIndexed)
def _not_indexed_default(element: _NotIndexed, compiler: Any, **kw: Any) -> str:
    return compiler.process(element.column, **kw)


@compiles(_NotIndexed, "sqlite")
def _not_indexed_sqlite(element: _NotIndexed, compiler: Any, **kw: Any) -> str:
    return "+" + compiler.process(element.column, **kw)


def uses_index(search: str | None) -> bool:
    """True when ``search`` is looked up in the index (3 or more characters, lowered)."""
    return len(searched_text(search).lower()) >= _MIN_INDEXED


#: A run with at least this many index candidates for a search is *dense* for it.
DENSE_CANDIDATES = 2000


def dense_search(conn: sa.Connection, run_id: str, search: str | None) -> bool:
    """True when ``run_id`` holds ``DENSE_CANDIDATES`` or more index candidates for ``search``.

    A page of a sparse search is read from its candidates (all of them
    checked and sorted: a few thousand at most); a dense one walks the run
    in the page's order (an ``ix_rows_*`` index) and stops at the page's last
    row, so a search that 50,000 rows of a million match checks about a
    thousand of them for its first page instead of sorting every match.
    Counted on SQLite's index, stopping at the threshold; PostgreSQL's
    planner makes the same choice from its statistics (False there).
    """
    if conn.dialect.name != "sqlite" or not uses_index(search):
        return False
    found = conn.exec_driver_sql(
        f"SELECT count(*) FROM (SELECT 1 FROM {FTS_TABLE} CROSS JOIN rows "
        f"ON rows.rowid = {FTS_TABLE}.rowid WHERE {FTS_TABLE} MATCH ? AND rows.run_id = ? "
        "LIMIT ?)",
        (fts_phrase(searched_text(search).lower()), run_id, DENSE_CANDIDATES),
    ).scalar()
    return int(found or 0) >= DENSE_CANDIDATES


def run_key(column: Any, search: str | None, *, walk: bool = False) -> Any:
    """``column`` (``rows.run_id``) as the query should test it when searching ``search``.

    With an indexed search the index's candidates (a few rowids, usually) must
    drive the query; left to itself, SQLite walks every row of the run by
    ``run_id`` and tests each against the candidate list (20x slower on 200k
    rows). ``+rows.run_id`` keeps the test but takes it off the indexes. A
    ``walk`` (a dense search, :func:`dense_search`) wants the run's index.
    """
    return _NotIndexed(column) if uses_index(search) and not walk else column


def search_condition(search: str, *, walk: bool = False) -> sa.ColumnElement[bool]:
    """The WHERE condition of a row search for ``search`` (index first, where one applies).

    ``walk``: the index's candidates test the rows an index walk of the run
    reaches instead of driving the query (:func:`dense_search`).

    >>> from sqlalchemy.dialects import sqlite
    >>> "rows_fts MATCH" in str(search_condition("5503").compile(dialect=sqlite.dialect()))
    True
    >>> "rows_fts" in str(search_condition("ab").compile(dialect=sqlite.dialect()))  # too short
    False
    """
    condition = like_condition(search)
    # The index is asked for the pattern LIKE tests (``search.lower()``): every
    # row LIKE keeps has it, case-folded the index's way, so nothing is lost.
    if not uses_index(search):
        return condition
    return sa.and_(_FtsCandidates(fts_phrase(searched_text(search).lower()), walk=walk), condition)


def create_search_index(op: Any) -> None:
    """Create the dialect's search index and index the rows already stored (migration 5)."""
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        _create_sqlite(op)
    elif dialect == "postgresql":
        _create_postgresql(op)


def _create_sqlite(op: Any) -> None:
    from tooleval.errors import StoreError

    bind = op.get_bind()
    try:
        bind.exec_driver_sql(
            "CREATE VIRTUAL TABLE temp.tooleval_fts_probe USING fts5(x, tokenize='trigram')"
        )
        bind.exec_driver_sql("DROP TABLE temp.tooleval_fts_probe")
    except sa.exc.OperationalError as exc:
        raise StoreError(
            f"this SQLite ({bind.exec_driver_sql('SELECT sqlite_version()').scalar()}) has no "
            f"FTS5 trigram tokenizer (needs SQLite 3.34+ with FTS5): {exc.orig}"
        ) from None
    cols = ", ".join(SEARCHED_COLUMNS)
    new = ", ".join(f"new.{c}" for c in SEARCHED_COLUMNS)
    old = ", ".join(f"old.{c}" for c in SEARCHED_COLUMNS)
    delete_old = (
        f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, {cols}) VALUES ('delete', old.rowid, {old});"
    )
    insert_new = f"INSERT INTO {FTS_TABLE}(rowid, {cols}) VALUES (new.rowid, {new});"
    op.execute(
        f"CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5({cols}, "
        "content='rows', content_rowid='rowid', tokenize='trigram')"
    )
    op.execute(f"CREATE TRIGGER rows_fts_insert AFTER INSERT ON rows BEGIN {insert_new} END")
    op.execute(f"CREATE TRIGGER rows_fts_delete AFTER DELETE ON rows BEGIN {delete_old} END")
    op.execute(
        f"CREATE TRIGGER rows_fts_update AFTER UPDATE OF {cols} ON rows "
        f"BEGIN {delete_old} {insert_new} END"
    )
    op.execute(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('rebuild')")


def _create_postgresql(op: Any) -> None:
    bind = op.get_bind()
    available = bind.exec_driver_sql(
        "SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm'"
    ).first()
    if available is None:
        return
    try:
        # A savepoint: a role that may not create the extension leaves the upgrade intact.
        with bind.begin_nested():
            bind.exec_driver_sql("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    except sa.exc.DBAPIError:
        return
    for name in SEARCHED_COLUMNS:
        column = f"CAST({name} AS TEXT)" if name in _JSON_COLUMNS else name
        op.execute(
            f"CREATE INDEX ix_rows_search_{name} ON rows USING gin (lower({column}) gin_trgm_ops)"
        )
