# Types of the compiled kernel, tooleval._kernel (kernel/src/lib.rs, built by maturin).
# tooleval.metrics.engine calls it, and tooleval.traces.protobuf its OTLP wire walker
# (kernel/src/otlp.rs); see docs/architecture.md. Keep in step with lib.rs.
from collections.abc import Callable
from typing import Any, Final, final

METRICS: Final[tuple[str, ...]]
"""The metrics the kernel can score (the rest always run in Python)."""

PROTOCOL: Final[int]
"""What the kernel speaks; the engine uses a kernel only when this equals its own."""

def accepts() -> str:
    """JSON: ``{protocol, metrics: {name: {option: [values] | null}}, matchers, similarity_methods}``."""

def similarity(method: str, a: str, b: str, case_sensitive: bool) -> float | None:
    """The kernel's string similarity; None when it leaves the pair to Python."""

def otlp_trace_spans(body: bytes, span_class: type, line: int | None) -> list[Any] | None:
    """The spans of a protobuf OTLP trace request made by ``span_class``; None for Python."""

@final
class Unwritten:
    """A scored sample's diagnosis, written when called."""

    def __call__(self) -> bytes:
        """The diagnosis as JSON bytes (``Diagnosis.to_dict()`` through ``orjson.dumps``)."""

@final
class Kernel:
    """A bound metric the kernel scores (config, params and threshold as JSON bytes)."""

    def __new__(cls, config: bytes, params: bytes, threshold: bytes) -> Kernel: ...
    def score_line(self, line: bytes, number: int) -> bytes | None:
        """The result line of one JSONL line (newline included), or None for Python."""

    @staticmethod
    def know_model(sample: type, expected_tools: type, tool_call: type) -> None:
        """Give the kernel the model classes ``score_sample`` reads."""

    def score_sample(
        self, sample: object
    ) -> tuple[float | None, bool | None, str, Unwritten] | None:
        """``(score, passed, reason, diagnosis)`` of a Sample, or None for Python."""

    def score_stream(
        self,
        read: Callable[[int], bytes],
        fd: int,
        fallback: Callable[[int, bytes], bytes],
        threads: int = 1,
        block: int = 1048576,
    ) -> int:
        """Read, score and write a whole stream (results to ``fd``); the number of rows."""

    @staticmethod
    def score_streams(
        kernels: list[Kernel | None],
        read: Callable[[int], bytes],
        write: Callable[[bytes], object] | None,
        fallback: Callable[[int, bytes, tuple[int, ...]], list[bytes]],
        fd: int = -1,
        threads: int = 1,
        block: int = 1048576,
        tally: bool = False,
        keep: int = 0,
        progress: Callable[[int], object] | None = None,
        record: bool = False,
        fields: list[str] | None = None,
    ) -> tuple[
        int,
        tuple[
            list[tuple[int, int, int, int, float]],
            dict[str, int],
            list[tuple[str, int, bytes, bytes]],
            bytes | None,
            bytes | None,
        ]
        | None,
    ]:
        """Score a stream with several metrics, each row parsed once (None: Python's metric);
        ``(rows, (per-metric counts, rows per status, kept rows, scores, verdicts) or None)``."""

    def score_block(
        self, data: bytes, start: int, threads: int = 1
    ) -> list[bytes | tuple[int, bytes]]:
        """Score whole lines numbered from ``start``: result bytes and rows left to Python."""
