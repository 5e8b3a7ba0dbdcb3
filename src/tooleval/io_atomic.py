"""Output files that are either complete or absent.

Every file a command writes (``score -o``, ``monitor --json/--emit``,
exports) goes through :func:`atomic_write`: the data is written to a
temporary file beside the target (same directory, so the final rename stays
on one file system) and renamed over the target only when everything was
written. On any failure the temporary file is removed and the target is left
as it was, so nothing that looks complete is left behind.

:func:`check_output_path` is called before any work starts: it makes the
folders an output path names that do not exist yet (the one rule of every
output option), and a directory given as the file, an unwritable place, a
folder that cannot be made or an output path that is also an input path is an
:class:`~tooleval.errors.InputError` naming the option.

It is the one check of every option that writes a file: an output is never
the input dataset, the run store, a receiver's open-session buffer or another
output of the same command (symbolic and hard links resolved), and never
replaces an existing file of another kind than it writes (a SQLite database,
a binary file, JSON where Markdown or XML goes, text where JSON lines go): a
file tooleval did not make for that purpose is left alone.

>>> import tempfile, pathlib
>>> target = pathlib.Path(tempfile.mkdtemp()) / "out.jsonl"
>>> with atomic_write(target) as handle:
...     _ = handle.write(b'{"id": "1"}\\n')
>>> target.read_bytes()
b'{"id": "1"}\\n'
>>> check_output_path(target, option="--output", inputs=[target])
Traceback (most recent call last):
...
tooleval.errors.InputError: field --output: ... is also an input file; write the output elsewhere
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from tooleval.errors import InputError

__all__ = [
    "OPEN_SESSION_BUFFER",
    "atomic_write",
    "check_output_path",
    "same_file",
    "store_file",
]

#: The first line of a receiver's open-session buffer starts with this (its purpose mark).
OPEN_SESSION_BUFFER = '{"tooleval": "open-session buffer"'

#: What an output option writes -> the kinds of existing file it may replace.
_REPLACES = {
    "jsonl": ("json", "empty"),
    "json": ("json", "empty"),
    "xml": ("markup", "empty"),
    "html": ("markup", "empty"),
    "csv": ("text", "empty"),
    "md": ("text", "markup", "empty"),
}


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two paths name the same file (through links and ``..`` too)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return Path(a).resolve() == Path(b).resolve()


def store_file(store: str | os.PathLike[str] | None) -> str | None:
    """The file of a SQLite run store given as a path or ``sqlite:///`` URL (else None).

    >>> store_file("runs.db"), store_file("sqlite:///ci/runs.db?mode=rw")
    ('runs.db', 'ci/runs.db')
    >>> store_file("postgresql://me@127.0.0.1/evals"), store_file("sqlite://"), store_file(None)
    (None, None, None)
    """
    if store is None:
        return None
    text = os.fspath(store)
    scheme, sep, rest = text.partition("://")
    if not sep:
        return text or None
    if scheme.lower() not in ("sqlite", "sqlite+pysqlite") or not rest.startswith("/"):
        return None
    database = rest[1:].split("?")[0]
    if database in ("", ":memory:") or database.startswith("file:"):
        return None
    return database


def check_output_path(
    path: str | os.PathLike[str],
    *,
    option: str = "--output",
    inputs: Iterable[str | os.PathLike[str] | None] = (),
    stores: Iterable[str | os.PathLike[str] | None] = (),
    kind: str | None = None,
    keys: Collection[str] = (),
    mark: bytes = b"",
    writes: str = "",
) -> Path:
    """Refuse an output path that cannot be written, before any work is done.

    Returns the path. Raises :class:`~tooleval.errors.InputError` (field
    ``option``) when the path is empty, is a directory, sits in a directory
    that cannot be made or written, is one of ``inputs`` or the file of one of
    ``stores`` (paths or store URLs), or is an existing file that is not of
    the ``kind`` written (``jsonl``, ``json``, ``xml``, ``html``, ``csv``,
    ``md``): a SQLite database (a run store: replacing it would lose every
    run), a receiver's open-session buffer, a binary file, or text of another
    kind. Missing folders on the way are made.

    ``keys`` (with ``writes``, what the lines are) names the keys a line of a
    ``jsonl`` output may have, or the columns of a ``csv`` output's header: an
    existing non-empty file is replaced only when its first line is such a line
    (holding ``mark`` too, when given), so that ``score -o`` can replace the
    results of an earlier ``score`` but never a dataset, a trace file or other
    JSON lines tooleval did not write there.
    """
    text = os.fspath(path)
    if not text:
        raise InputError("expected a file path, got an empty string", field=option)
    if kind is not None and kind not in _REPLACES:
        raise ValueError(f"unknown output kind {kind!r}; expected one of {sorted(_REPLACES)}")
    target = Path(text)
    for given in inputs:
        if given is None or os.fspath(given) in ("", "-"):
            continue
        if same_file(target, given):
            raise InputError(
                f"{text} is also an input file; write the output elsewhere", field=option
            )
    for store in stores:
        database = store_file(store)
        if database is not None and same_file(target, database):
            raise InputError(f"{text} is the run store; write the output elsewhere", field=option)
    if target.is_dir() or text.endswith(os.sep):
        raise InputError(f"{text} is a directory; expected a file path", field=option)
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.exists():
        # One rule for every output option: folders that do not exist yet are made (CI
        # steps name report folders such as reports/junit.xml), as pytest --junitxml does.
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(
                f"cannot create the directory {str(parent)!r}: {exc.strerror or exc}",
                field=option,
            ) from None
    if not parent.is_dir():
        raise InputError(f"{str(parent)!r} is not a directory", field=option)
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"cannot write in the directory {str(parent)!r}", field=option)
    if target.exists() and not os.access(target, os.W_OK):
        raise InputError(f"{text} exists and is not writable", field=option)
    found = _kind_of(target)
    if found == "sqlite":  # a run store (or cache): replacing it would lose every run
        raise InputError(
            f"{text} is a SQLite database (a run store?); write the output elsewhere",
            field=option,
        )
    if found == "buffer":
        raise InputError(
            f"{text} is a receiver's open-session buffer (sessions waiting for a restart); "
            "write the output elsewhere",
            field=option,
        )
    if kind is not None and found is not None and found not in _REPLACES[kind]:
        what = {"binary": "a binary file", "json": "JSON", "markup": "XML/HTML"}.get(found, "text")
        raise InputError(
            f"{text} exists and holds {what}, not {kind.upper()} that tooleval wrote there; "
            "it is left alone: write the output elsewhere or remove the file first",
            field=option,
        )
    if keys and found not in (None, "empty"):
        _refuse_foreign_lines(target, text, option, kind, frozenset(keys), mark, writes)
    return target


#: Keys that tell a dataset row (or a conversation log) and a trace apart from other lines.
_DATASET_KEYS = frozenset(
    {
        "tools_called",
        "expected_tools",
        "messages",
        "input",
        "expected_output",
        "turns",
        "conversation",
    }
)
_TRACE_KEYS = frozenset(
    {"resourceSpans", "resourceLogs", "spans", "trace_id", "traceId", "span_id"}
)


def _refuse_foreign_lines(
    target: Path,
    text: str,
    option: str,
    kind: str | None,
    keys: frozenset[str],
    mark: bytes,
    writes: str,
) -> None:
    """Refuse ``target`` unless its first line is a line of this output (see ``check_output_path``)."""
    import json

    with target.open("rb") as handle:
        first = handle.readline(1 << 20).lstrip(b"\xef\xbb\xbf").strip()
    found: set[str] | None = None
    if kind == "csv":
        import csv

        try:
            header = next(csv.reader([first.decode("utf-8")]), [])
        except (UnicodeDecodeError, csv.Error):
            header = []
        found = {cell.strip() for cell in header}
    else:
        try:
            row = json.loads(first)
        except ValueError:
            row = None
        if isinstance(row, dict):
            found = set(row)
    if found and found <= keys and mark in first:
        return
    if found is None:
        what = "a first line that is not a JSON object"
    elif found & _DATASET_KEYS:
        what = "dataset rows"
    elif found & _TRACE_KEYS:
        what = "traces or telemetry"
    else:
        what = "lines of another kind"
    if found:
        shown = sorted(found)
        what += f" (first line's {'columns' if kind == 'csv' else 'keys'}: "
        what += ", ".join(shown[:6]) + (", ..." if len(shown) > 6 else "") + ")"
    raise InputError(
        f"{text} exists and holds {what}, not {writes or 'lines'} that tooleval wrote there; "
        "it is left alone: write the output elsewhere or remove the file first",
        field=option,
    )


def _kind_of(path: Path) -> str | None:
    """What an existing file holds, from its first bytes (None when there is no file)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(4096)
    except OSError:
        return None
    if head.startswith(b"SQLite format 3\x00"):
        return "sqlite"
    if head.startswith(OPEN_SESSION_BUFFER.encode()):
        return "buffer"
    if b"\x00" in head:
        return "binary"
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not stripped:
        return "empty"
    if stripped[:1] in (b"{", b"["):
        return "json"
    if stripped[:1] == b"<":
        return "markup"
    return "text"


@contextlib.contextmanager
def atomic_write(
    path: str | os.PathLike[str], mode: str = "wb", *, encoding: str | None = None
) -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path``; rename it to ``path`` on success.

    ``mode`` is ``"wb"`` or ``"w"`` (text, ``encoding`` defaults to UTF-8).
    If the block raises, the temporary file is deleted and ``path`` is not
    touched.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write writes new files only (mode 'w' or 'wb'), got {mode!r}")
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial", dir=directory)
    try:
        if mode == "w":
            handle: IO[Any] = open(fd, "w", encoding=encoding or "utf-8", newline="")  # noqa: SIM115
        else:
            handle = open(fd, "wb")  # noqa: SIM115
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        _match_permissions(temp, target)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _match_permissions(temp: str, target: Path) -> None:
    """Give the new file the mode a plain ``open(path, "w")`` would have given it."""
    try:
        mode = target.stat().st_mode & 0o7777
    except OSError:
        mode = 0o666 & ~_umask()
    os.chmod(temp, mode)


def _umask() -> int:
    """The process umask, read without changing it where the system allows (Linux)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    umask = os.umask(0)  # elsewhere: set and restore at once
    os.umask(umask)
    return umask
