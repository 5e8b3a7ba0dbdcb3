"""The :class:`Benchmark` record: everything tooleval knows about one benchmark, in one value.

A benchmark package (built in or third party) exposes one record through the
``tooleval.benchmarks`` entry-point group; ``tooleval score --format NAME``,
format detection, ``tooleval metrics`` and the metric registry read the
records and nothing else. A record that cannot be read from one of its
records comes back as a Sample marked :data:`UNREADABLE` (see
:func:`unreadable`), which scoring turns into an unscored row with the reason.

>>> from tooleval.model import Sample
>>> toy = Benchmark(name="toy", title="Toy", description="toy rows",
...                 read=lambda path, data=None: [Sample(tools_called=[])],
...                 default_metric="tool_call_f1")
>>> toy.accepts("TOY"), toy.accepts("to-y")
(True, False)

A record's functions may live in modules that import heavy code (grading,
decoders); :func:`lazy` names one by ``"module:attribute"`` and imports it on
first call, so reading the record stays cheap.

>>> unreadable_reason(unreadable("r1", "no 'traj'")), unreadable_reason(Sample())
("no 'traj'", None)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tooleval.errors import ConfigError, FormatError
from tooleval.model import MetricInfo, Result, Sample
from tooleval.model.sample import UNREADABLE_KEY, unreadable_reason

__all__ = [
    "UNREADABLE",
    "Benchmark",
    "lazy",
    "normalize_name",
    "read_each",
    "record_id",
    "unreadable",
    "unreadable_reason",
]

#: The metadata key of a Sample standing for a record that could not be read.
UNREADABLE = UNREADABLE_KEY


def normalize_name(name: str) -> str:
    """A format name as compared: lower case, ``_`` and spaces read as ``-``.

    >>> normalize_name("Tau_Bench"), normalize_name(" api bank ")
    ('tau-bench', 'api-bank')
    """
    return "-".join(name.strip().lower().replace("_", " ").replace("-", " ").split())


@dataclass(frozen=True, slots=True)
class Benchmark:
    """One benchmark: how its files are read, told apart and scored.

    ``name`` is the canonical spelling shown everywhere (``tau-bench``);
    ``aliases`` are other accepted names (compared after
    :func:`normalize_name`, as ``name`` is). ``read(path, data=None,
    **options)`` yields one :class:`~tooleval.model.Sample` per record
    (:func:`unreadable` for a record it cannot read; a DatasetError only when
    the file cannot be read at all). ``data`` says what ``--data`` is for this
    benchmark (None: it takes none); ``data_required`` makes it mandatory.

    Detection, all optional: ``detect(value)`` is True for a parsed JSON
    document (or the first record of a list, or the first row of a JSONL
    file when ``jsonl_rows``) of this benchmark; ``detect_path(path)`` for a
    file or folder known by its name; ``near_miss(value, head)`` says what
    is wrong with a file that looks like this benchmark's but is not one
    (``value`` the parsed document, None when it did not parse; ``head`` its
    first 64 KiB as text), or None.

    ``default_metric`` and ``default_options`` reproduce the benchmark's own
    verdict; ``metrics`` are the metrics the benchmark declares (registered
    with the metric registry): the MetricInfo records, or a function
    returning them, so that reading the record for detection does not import
    the grading code (:meth:`metric_infos` gives them either way);
    ``summaries`` maps a metric name to the benchmark's corpus-level numbers
    over its results; ``docs`` is the page that documents it.

    ``grader(data)``, optional, chooses the default metric when ``tooleval
    score`` runs (what it needs may be on this machine or not): it returns
    ``(metric, options, notice)``, ``notice`` a line for the user (which
    grader, on what; or what is missing and how to provide it) or None.
    Without it, ``default_metric`` and ``default_options`` are used.

    Any of these functions may be a :func:`lazy` one, imported when first
    called: ``read=lazy("toy_bench.reader:load_toy", data="reference")``.
    """

    name: str
    title: str
    description: str
    read: Callable[..., Iterable[Sample]]
    default_metric: str
    default_options: Mapping[str, Any] = field(default_factory=dict)
    metrics: tuple[MetricInfo, ...] | Callable[[], Iterable[MetricInfo]] = ()
    aliases: tuple[str, ...] = ()
    detect: Callable[[Any], bool] | None = None
    detect_path: Callable[[Any], bool] | None = None
    near_miss: Callable[[Any, str], str | None] | None = None
    jsonl_rows: bool = False
    data: str | None = None
    data_required: bool = False
    summaries: Mapping[str, Callable[[Iterable[Result]], Mapping[str, Any]]] = field(
        default_factory=dict
    )
    docs: str = ""
    grader: Callable[[Any], tuple[str, Mapping[str, Any], str | None]] | None = None

    def metric_infos(self) -> tuple[MetricInfo, ...]:
        """The metrics this benchmark declares (``metrics``, called when it is a function)."""
        declared = self.metrics() if callable(self.metrics) else self.metrics
        return tuple(declared)

    def accepts(self, name: str) -> bool:
        """Whether ``name`` names this benchmark (case, ``-``/``_`` and spaces aside)."""
        wanted = normalize_name(name)
        return any(normalize_name(n) == wanted for n in (self.name, *self.aliases))


# The default of lazy(data=...): the function is not a reader; arguments pass unchanged.
_NOT_A_READER = object()
_UNRESOLVED = object()


class _Lazy:
    """The callable :func:`lazy` returns: ``module:attribute``, imported on its first call."""

    __slots__ = ("_data", "_found", "_target")

    def __init__(self, target: str, data: Any) -> None:
        module, _, attribute = target.partition(":")
        if (
            not module
            or not attribute
            or not all(part.isidentifier() for part in (*module.split("."), *attribute.split(".")))
        ):
            raise ConfigError("a lazy target is 'package.module:attribute'", target=repr(target))
        self._target = target
        self._data = data
        self._found: Any = _UNRESOLVED

    def __repr__(self) -> str:
        return f"lazy({self._target!r})"

    def resolve(self) -> Any:
        """The attribute itself, imported now if it was not yet (ConfigError if it is missing)."""
        if self._found is _UNRESOLVED:
            self._found = _import_target(self._target)
        return self._found

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        found = self.resolve()
        if self._data is not _NOT_A_READER:
            return self._read(found, *args, **kwargs)
        if not callable(found):
            if args or kwargs:
                raise TypeError(f"{self._target} is not callable; it takes no arguments")
            return found
        return found(*args, **kwargs)

    def _read(self, found: Any, path: Any, data: Any = None, **options: Any) -> Any:
        if self._data is not None:
            options[self._data] = data
        return found(path, **options)


def _import_target(target: str) -> Any:
    """The attribute ``target`` names, its module imported; ConfigError naming what is missing.

    >>> _import_target("json.decoder:JSONDecoder.decode").__qualname__
    'JSONDecoder.decode'
    >>> _import_target("nope:f")
    Traceback (most recent call last):
    tooleval.errors.ConfigError: target nope:f: no module 'nope' (install it or fix the name)
    """
    module_name, _, attribute = target.partition(":")
    try:
        value: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        # Only the named module (or a package above it) being absent is a bad target; a
        # dependency the module itself lacks is that module's error, raised as it is.
        if exc.name is None or not (module_name + ".").startswith(exc.name + "."):
            raise
        raise ConfigError(
            f"no module {exc.name!r} (install it or fix the name)",
            target=target,
        ) from None
    for part in attribute.split("."):
        if not hasattr(value, part):
            raise ConfigError(
                f"module {module_name!r} has no attribute {attribute!r}", target=target
            )
        value = getattr(value, part)
    return value


def lazy(target: str, *, data: Any = _NOT_A_READER) -> Callable[..., Any]:
    """A function standing for ``target`` (``"package.module:attribute"``), imported on first call.

    Calling it imports the module (once), then calls the attribute with the
    same arguments; an attribute that is not a function (a tuple of
    MetricInfo for ``Benchmark.metrics``) is returned as it is. A target whose
    module or attribute does not exist is a ConfigError naming it, raised at
    that first call; a malformed ``target`` string is refused at once.

    ``data`` makes it a reader, ``read(path, data=None, **options)``: the
    target is called as ``target(path, **options)`` with ``data`` passed as the
    keyword ``data`` names (``data="reference"``: ``reference=data``), or
    dropped when ``data`` is None (a reader that takes no ``--data``).

    >>> dumps = lazy("json:dumps")
    >>> dumps({"a": 1})
    '{"a": 1}'
    >>> read = lazy("json:loads", data="parse_int")  # read(path, data) -> loads(path, parse_int=data)
    >>> read("[1, 2.5]", str)
    ['1', 2.5]
    >>> lazy("json:nope")()
    Traceback (most recent call last):
    tooleval.errors.ConfigError: target json:nope: module 'json' has no attribute 'nope'
    """
    return _Lazy(target, data)


def unreadable(ident: Any, reason: str, *, category: str | None = None) -> Sample:
    """The Sample standing for a record that cannot be read: scored as unscored, ``reason`` given."""
    return Sample(
        id=None if ident is None else str(ident),
        category=category,
        metadata={UNREADABLE: reason},
    )


def record_id(record: Any, index: int, *keys: str) -> str:
    """A record's id for an unreadable row: its first present key of ``keys``, else its index.

    >>> record_id({"task_id": 7, "trial": 1}, 3, "id"), record_id("junk", 3, "id")
    ('3', '3')
    """
    if isinstance(record, Mapping):
        for key in keys:
            value = record.get(key)
            if isinstance(value, str | int) and not isinstance(value, bool):
                return str(value)
    return str(index)


def read_each(
    records: Sequence[Any],
    read_one: Callable[[int, Any], Sample],
    ident: Callable[[int, Any], str],
    *,
    path: str | None = None,
) -> list[Sample]:
    """``read_one(index, record)`` for every record; one that raises FormatError is unreadable.

    The unreadable row keeps the record's place and id (``ident``) and the
    error, field included, as its reason: one bad record never refuses the file.
    When no record at all can be read, the file is what is wrong: the first
    error is raised (with ``path``), saying what was seen.

    >>> def one(i, r):
    ...     if "x" not in r:
    ...         raise FormatError("missing 'x'", field=f"rows[{i}]")
    ...     return Sample(id=str(i))
    >>> [unreadable_reason(s) for s in read_each([{"x": 1}, {}], one, lambda i, r: str(i))]
    [None, "field rows[1]: missing 'x'"]
    >>> read_each([{}], one, lambda i, r: str(i))
    Traceback (most recent call last):
    tooleval.errors.FormatError: field rows[0]: missing 'x'

    """
    out: list[Sample] = []
    first: FormatError | None = None
    failed = 0
    for index, record in enumerate(records):
        try:
            out.append(read_one(index, record))
        except FormatError as exc:
            first = first or exc
            failed += 1
            out.append(unreadable(ident(index, record), str(exc)))
    if first is not None and failed == len(out):
        raise first.with_context(path=path) if path is not None else first
    return out
