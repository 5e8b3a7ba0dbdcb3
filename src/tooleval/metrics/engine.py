"""The fastest engine for a bound metric: the compiled kernel, or the Python reference.

``tooleval._kernel`` (a Rust extension built from ``kernel/`` by ``make``) scores
the deterministic call metrics from the bytes of a JSONL row to the bytes of
the result line, equal byte for byte to what the Python metrics give. It is a
faster engine, not a second definition: whatever it cannot take (a callable
or non-built-in matcher, options it does not know, a row that is not a plain
canonical row, text whose ``repr`` depends on Unicode tables) is scored by
the Python reference, row by row, in the same output order.

:func:`fastest_engine` is the one place that knows the kernel exists;
``tooleval score`` asks it for an engine and feeds it lines. Set
``TOOLEVAL_NO_KERNEL=1`` to always use Python.

>>> from tooleval.metrics import bind
>>> engine = fastest_engine(bind("tool_call_accuracy"))
>>> engine.metric
'tool_call_accuracy'
>>> lines = [b'{"id": "a", "tools_called": ["f"], "expected_tools": ["f"]}\\n']
>>> out = b"".join(engine.score_lines(lines, lambda number, line: b"python\\n"))
>>> out.startswith(b'{"id":"a","metric":"tool_call_accuracy"') or out == b"python\\n"
True
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import queue
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from tooleval.metrics.registry import BoundMetric
from tooleval.model import ExpectedTools, Result, Sample, ToolCall

__all__ = [
    "ENV_DISABLE",
    "PROTOCOL",
    "Engine",
    "accepted",
    "fastest_engine",
    "in_process_scorer",
    "kernel_status",
    "score_metrics_stream",
]

#: Environment variable that disables the compiled kernel when set to a non-empty value.
ENV_DISABLE = "TOOLEVAL_NO_KERNEL"

_BLOCK_BYTES = 1 << 20  # lines handed to the kernel at once (memory stays flat)
_NOTICE_ROWS = 10_000  # rows scored in Python before saying the kernel would have helped
_BUILTIN_PROVIDER = "tooleval.metrics.builtin"

#: The kernel protocol this engine speaks (``PROTOCOL`` in kernel/src/protocol.rs). A
#: kernel that reports another version (or none: built before it reported one) is not
#: used; Python scores everything, with one notice.
PROTOCOL = 5

_NO_ARGUMENTS = "exact"  # the comparator of a metric without `args`

_loaded: list[Any] = []  # [module or None], imported on first use
_stale: list[Any] = []  # [the protocol of a kernel left unused], when one was found
_accepted: dict[int, dict[str, Any]] = {}  # id(module) -> what its accepts() reports
_noticed: list[bool] = []


def _kernel_module() -> Any:
    if not _loaded:
        module: Any
        try:
            from tooleval import _kernel as module  # typed by tooleval/_kernel.pyi
        except ImportError:  # not built: a pure-Python install
            module = None
        if module is not None and getattr(module, "PROTOCOL", None) != PROTOCOL:
            _stale.append(getattr(module, "PROTOCOL", None))
            print(
                f"tooleval: the compiled kernel speaks protocol {_stale[0]}, this tooleval "
                f"speaks {PROTOCOL}; scoring in pure Python (reinstall tooleval to rebuild it: "
                "pip install --force-reinstall . from the repository, or `make kernel`)",
                file=sys.stderr,
            )
            module = None
        _loaded.append(module)
    if os.environ.get(ENV_DISABLE):
        return None
    return _loaded[0]


def accepted(module: Any) -> dict[str, Any]:
    """What ``module`` (the compiled kernel) reports it scores: its ``accepts()``, parsed.

    ``{"protocol", "metrics": {name: {option: [values] or None}}, "matchers":
    {name: [options of its spec]}, "similarity_methods"}``; an option whose
    values are None takes any value of its kind.

    >>> module = _kernel_module()
    >>> module is None or accepted(module)["protocol"] == PROTOCOL
    True
    """
    found = _accepted.get(id(module))
    if found is None:
        import orjson

        found = orjson.loads(module.accepts())
        _accepted[id(module)] = found
    return found


def kernel_status() -> str:
    """``"compiled"``, ``"disabled"`` (by ``TOOLEVAL_NO_KERNEL``), ``"stale"`` (another
    protocol: rebuild it) or ``"absent"`` (not built).

    >>> kernel_status() in ("compiled", "disabled", "stale", "absent")
    True
    """
    if os.environ.get(ENV_DISABLE):
        return "disabled"
    if _kernel_module() is not None:
        return "compiled"
    return "stale" if _stale else "absent"


_INT_RANGE = range(-(2**63), 2**64)  # the integers the kernel's JSON values hold


def _plain_json(value: Any, depth: int = 0) -> bool:
    """Is ``value`` JSON the kernel reads back as the same Python value?"""
    kind = type(value)
    if kind is str:
        return value.isascii() or not any(0xD800 <= ord(c) <= 0xDFFF for c in value)
    if kind is bool or value is None:
        return True
    if kind is int:
        return value in _INT_RANGE
    if kind is float:
        return math.isfinite(value)
    if depth > 24:
        return False
    if kind is list or kind is tuple:
        return all(_plain_json(v, depth + 1) for v in value)
    if kind is dict:
        return all(type(k) is str and _plain_json(v, depth + 1) for k, v in value.items())
    return False


def _comparator_spec(spec: Any) -> Any:
    """``ArgumentComparator.spec()`` for the kernel, or None when Python must compare.

    The kernel builds every matcher from its spec (the form results record)
    and refuses a name or option it does not know, so a new option added to
    a Python matcher stays in Python until the kernel learns it.
    """
    from tooleval.matching.config import ArgumentComparator, resolve_comparator
    from tooleval.matching.specs import spec_is_whole

    try:
        cmp = spec if type(spec) is ArgumentComparator else resolve_comparator(spec)
    except Exception:
        return None  # the Python reference reports the bad spec
    if type(cmp) is not ArgumentComparator:
        return None
    per_tool = [m for per in cmp.tools.values() for m in per.values()]
    if not all(map(spec_is_whole, [cmp.default, *cmp.keys.values(), *per_tool])):
        return None
    described = cmp.spec()
    return described if _plain_json(described) else None


def _kernel_for(metric: BoundMetric, module: Any) -> Any:
    """A ``_kernel.Kernel`` bound like ``metric``, or None when Python must score it."""
    import orjson

    from tooleval.model import ExpectedTools, Sample

    info = metric.info
    if info.needs_judge or info.provider != _BUILTIN_PROVIDER:
        return None
    reported = accepted(module)
    options = reported["metrics"].get(info.name)
    if options is None or set(info.params) != set(options) or set(metric.params) != set(options):
        return None
    for name, values in options.items():
        if values is not None and metric.params[name] not in values:
            return None  # a value only the Python reference scores (e.g. messages="agent")
    arguments = metric.params if metric.arguments is None else metric.arguments
    args = _comparator_spec(arguments["args"]) if "args" in options else _NO_ARGUMENTS
    if args is None:
        return None
    try:
        # What the reference records for these options: params and threshold
        # are the same on every row, so they are taken from one probe row.
        probe = metric.score(Sample(tools_called=[], expected_tools=ExpectedTools(())))
    except Exception:
        return None  # invalid options: the reference raises them per row
    params = probe.params
    config: dict[str, Any] = {"metric": info.name, "threshold": probe.threshold, "args": args}
    for name in info.params:
        if name not in ("args", "threshold"):
            config[name] = params.get(name)
    try:
        return module.Kernel(
            orjson.dumps(config), orjson.dumps(params), orjson.dumps(probe.threshold)
        )
    except ValueError:
        return None


@dataclasses.dataclass
class Engine:
    """Scores JSONL lines with one bound metric (see :func:`fastest_engine`).

    ``compiled`` tells whether the kernel takes part; rows it hands back, and
    every row when it does not, go to the ``fallback`` given to
    :meth:`score_lines`.
    """

    metric: str
    kernel: Any = None
    eligible: bool = False  # the kernel would have taken this metric had it been built

    @property
    def compiled(self) -> bool:
        return self.kernel is not None

    def score_lines(
        self,
        lines: Iterable[bytes],
        fallback: Callable[[int, bytes], bytes],
        *,
        threads: int = 1,
    ) -> Iterator[bytes]:
        """Result bytes for every non-blank line, in input order (lines numbered from 1).

        ``fallback(number, line)`` scores one line in Python (and raises the
        error of a bad line). With the kernel, blocks of lines are scored on
        ``threads`` threads with the GIL released, while this thread reads
        the next blocks and hands back the results of earlier ones.
        """
        if self.kernel is None:
            yield from self._python_lines(lines, fallback)
            return
        yield from _pipeline(self.kernel.score_block, _blocks(lines), fallback, max(1, threads))

    def score_into(
        self,
        source: Any,
        out: Any,
        fallback: Callable[[int, bytes], bytes],
        *,
        threads: int = 1,
    ) -> int | None:
        """Score the binary file ``source`` into the binary file ``out`` all in the kernel.

        The same bytes as :meth:`score_lines`, in the same order, with the
        same ``fallback``; the kernel reads blocks through ``source.read``,
        scores them on ``threads`` threads (GIL released) and writes the
        result lines straight to ``out``'s file descriptor, so no Python
        object is made per row or per result. Returns the number of rows
        (non-blank lines), or None, having done nothing, when the kernel
        does not take part or ``source`` / ``out`` is not a file (then use
        :meth:`score_lines`). An error in a row raises after every row
        before it has been written.

        >>> import io
        >>> from tooleval.metrics import bind
        >>> engine = fastest_engine(bind("tool_call_accuracy"))
        >>> engine.score_into(io.BytesIO(b"{}"), io.BytesIO(), lambda n, line: b"")  # not files
        """
        read = getattr(source, "read", None)
        fd = _descriptor(out)
        if self.kernel is None or read is None or fd is None:
            return None
        out.flush()  # what Python buffered goes first
        rows: int = self.kernel.score_stream(read, fd, fallback, max(1, threads), _BLOCK_BYTES)
        return rows

    def _python_lines(
        self, lines: Iterable[bytes], fallback: Callable[[int, bytes], bytes]
    ) -> Iterator[bytes]:
        count = 0
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            yield fallback(number, line)
            count += 1
            if count == _NOTICE_ROWS and self.eligible and not _noticed:
                _noticed.append(True)
                print(
                    "tooleval: scoring in pure Python (this install has no compiled kernel; "
                    "`tooleval --version` says so); for several times the speed, install a "
                    "tooleval wheel built for this platform, or install Rust "
                    "(https://rustup.rs) and reinstall tooleval with pip",
                    file=sys.stderr,
                )


def _pipeline(
    score_block: Callable[[bytes, int, int], list[Any]],
    blocks: Iterator[tuple[int, bytes]],
    fallback: Callable[[int, bytes], bytes],
    threads: int,
) -> Iterator[bytes]:
    """The kernel's parts of every block in order, while later blocks are being scored.

    Each of ``threads`` threads scores whole blocks (the kernel releases the
    GIL), so reading the next blocks and writing the results of earlier ones
    overlap with scoring. At most ``threads + 1`` blocks are in flight, so
    memory stays flat; rows the kernel hands back are scored here, in order.
    """
    # Plain threads and queues: concurrent.futures would import logging (start-up).
    jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()

    def work() -> None:
        while (job := jobs.get()) is not None:
            block, start, box = job
            try:
                box.put((score_block(block, start, 1), None))
            except BaseException as exc:  # handed to the reading thread, raised there
                box.put((None, exc))

    workers = [
        threading.Thread(target=work, name="tooleval-kernel", daemon=True) for _ in range(threads)
    ]
    for worker in workers:
        worker.start()
    pending: deque[queue.SimpleQueue[Any]] = deque()
    try:
        for start, block in blocks:
            pending.append(queue.SimpleQueue())
            jobs.put((block, start, pending[-1]))
            if len(pending) > threads:
                yield from _parts(_done(pending.popleft()), fallback)
        while pending:
            yield from _parts(_done(pending.popleft()), fallback)
    finally:
        with contextlib.suppress(queue.Empty):  # stopped early (a bad row):
            while True:  # drop the blocks no thread has started
                jobs.get_nowait()
        for _ in workers:
            jobs.put(None)
        for worker in workers:
            worker.join()


def _descriptor(out: Any) -> int | None:
    """The file descriptor a binary stream writes to, or None (an in-memory stream)."""
    try:
        fd = out.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both
        return None
    return fd if type(fd) is int and hasattr(out, "flush") else None


def _done(box: queue.SimpleQueue[Any]) -> list[Any]:
    parts, error = box.get()
    if error is not None:
        raise error
    return list(parts)


def _parts(parts: list[Any], fallback: Callable[[int, bytes], bytes]) -> Iterator[bytes]:
    for part in parts:
        if type(part) is bytes:
            yield part
        else:
            yield fallback(part[0], part[1])


def _blocks(lines: Iterable[bytes]) -> Iterator[tuple[int, bytes]]:
    """``(number of the first line, whole lines joined)`` of about ``_BLOCK_BYTES`` each."""
    read = getattr(lines, "read", None)
    if read is not None:  # a binary file: cut blocks at line ends, no per-line work here
        start, rest = 1, b""
        while chunk := read(_BLOCK_BYTES):
            chunk = rest + chunk if rest else chunk
            cut = chunk.rfind(b"\n") + 1
            block, rest = chunk[:cut], chunk[cut:]
            if block:
                yield start, block
                start += block.count(b"\n")
        if rest:
            yield start, rest + b"\n"
        return
    parts: list[bytes] = []
    size = 0
    start = number = 1
    for line in lines:
        if not line.endswith(b"\n"):
            line += b"\n"
        parts.append(line)
        size += len(line)
        number += 1
        if size >= _BLOCK_BYTES:
            yield start, b"".join(parts)
            parts, size, start = [], 0, number
    if parts:
        yield start, b"".join(parts)


def fastest_engine(metric: BoundMetric) -> Engine:
    """The fastest engine for this bound metric and its options.

    The compiled kernel when it is built, not disabled by ``TOOLEVAL_NO_KERNEL``
    and able to take the metric with these options; else the Python reference.
    """
    module = _kernel_module()
    if module is None:
        info = metric.info
        core = info.provider == _BUILTIN_PROVIDER and not info.needs_judge
        return Engine(info.name, None, core and kernel_status() == "absent")
    return Engine(metric.info.name, _kernel_for(metric, module))


def score_metrics_stream(
    metrics: Sequence[BoundMetric],
    source: Any,
    out: Any,
    fallback: Callable[[int, bytes, tuple[int, ...]], list[bytes]],
    *,
    threads: int = 1,
    tally: bool = False,
    keep: int = 0,
    progress: Callable[[int], object] | None = None,
    record: bool = False,
    fields: Sequence[str] = (),
) -> tuple[int, Any] | None:
    """Score a JSONL stream with several metrics in one pass of the kernel, each row parsed once.

    The kernel scores every metric it takes; the rest (a callable matcher,
    options only Python knows), and every row it hands back, go to
    ``fallback(number, line, indices)``: the result lines of those metrics
    (:func:`tooleval.scoring.rows.score_line_metrics`). The lines are written
    to ``out`` in input order, a row's metrics in the order of ``metrics``
    (the bytes of the Python reference). ``source`` is a binary file (read by
    blocks) or an iterable of lines. With ``tally`` the kernel counts what
    every result says and keeps the first ``keep`` rows of each kind (see
    ``Kernel.score_streams``); with ``record`` it also gives every row's scores
    and verdicts. ``progress(rows)`` is called after each block. With ``fields``
    the kernel writes each result line with only those fields (``--fields``: the
    bytes of :func:`tooleval.scoring.fields.project` of the whole line), straight
    from its scorer, building the reason and the diagnosis only when a field asks
    for them; the tally counts the same results and keeps whole lines.

    Returns ``(rows, tally or None)``, or None, having read nothing, when the
    kernel takes none of the metrics (or is not built): then Python scores.

    >>> import io
    >>> from tooleval.metrics import bind
    >>> from tooleval.scoring.rows import score_line_metrics
    >>> metrics = [bind("tool_call_f1"), bind("tool_correctness")]
    >>> out = io.BytesIO()
    >>> line = b'{"id": "a", "tools_called": ["f"], "expected_tools": ["f"]}\\n'
    >>> done = score_metrics_stream(metrics, io.BytesIO(line), out,
    ...     lambda n, line, which: score_line_metrics(metrics, n, line, which))
    >>> done is None or out.getvalue().count(b"\\n") == 2
    True
    """
    module = _kernel_module()
    if module is None:
        return None
    kernels = [_kernel_for(metric, module) for metric in metrics]
    if all(kernel is None for kernel in kernels):
        return None
    read = getattr(source, "read", None)
    if read is None:
        read = _LineReader(source).read
    fd = _descriptor(out)
    if fd is not None:
        out.flush()  # what Python buffered goes first
    rows, counted = module.Kernel.score_streams(
        kernels,
        read,
        None if fd is not None else out.write,
        fallback,
        fd=-1 if fd is None else fd,
        threads=max(1, threads),
        block=_BLOCK_BYTES,
        tally=tally,
        keep=keep,
        progress=progress,
        record=record,
        fields=list(fields) or None,
    )
    return int(rows), counted


class _LineReader:
    """``read(n)`` over an iterable of lines (each ending with a newline or not)."""

    def __init__(self, lines: Iterable[bytes]) -> None:
        self._blocks = _blocks(lines)

    def read(self, _size: int) -> bytes:
        for _start, block in self._blocks:
            return block
        return b""


def in_process_scorer(metric: BoundMetric) -> Callable[[Sample], Result | None] | None:
    """A kernel-backed ``score(sample)`` for this bound metric, or None when Python scores it all.

    The kernel is used on the same terms as in :func:`fastest_engine` (built,
    not disabled, the metric and its options taken). The scorer reads the
    sample's objects directly and returns a :class:`~tooleval.model.Result`
    equal to the Python reference's, whose diagnosis is decoded only when
    read; it returns None for a sample the kernel hands back (the caller then
    scores it in Python).

    >>> from tooleval.metrics import bind
    >>> scorer = in_process_scorer(bind("tool_call_f1"))
    >>> sample = Sample(tools_called=["a"], expected_tools=["a", "b"])
    >>> scorer is None or scorer(sample) == bind("tool_call_f1").score(sample)
    True
    """
    from tooleval.model.results import encoded_result

    module = _kernel_module()
    if module is None:
        return None
    kernel = _kernel_for(metric, module)
    if kernel is None:
        return None
    module.Kernel.know_model(Sample, ExpectedTools, ToolCall)  # the classes it reads
    # The reference records the same params and threshold on every row.
    probe = metric.score(Sample(tools_called=[], expected_tools=ExpectedTools(())))
    name, params, threshold = metric.info.name, probe.params, probe.threshold
    score_sample = kernel.score_sample

    def score(sample: Sample) -> Result | None:
        parts = score_sample(sample)
        if parts is None:
            return None
        score, passed, reason, diagnosis = parts
        return encoded_result(name, score, passed, reason, dict(params), threshold, diagnosis)

    return score
