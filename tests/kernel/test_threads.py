"""The compiled kernel is safe to call from threads Python starts after it is loaded.

The kernel's allocator (mimalloc) sets up a heap for each thread on the thread's
first allocation. With mimalloc v3 that crashed (``_mi_subproc`` in ``mi_thread_init``)
when the runner scored rows through ``asyncio.to_thread``: tests/runs/test_runner.py
ended in a segmentation fault every time. The kernel now builds mimalloc v2 with
dynamic TLS. This file exercises the same kinds of threads (pools, ``to_thread``,
threads that end and new ones after them, diagnoses written on other threads than
the one that scored) in its own process, so a crash is a failed test, not a lost
worker; the runner's tests are the reproducer.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip(
    "tooleval._kernel", reason="compiled kernel not built (`make kernel` needs cargo)"
)

from tooleval.metrics.engine import kernel_status  # noqa: E402

pytestmark = pytest.mark.skipif(
    kernel_status() != "compiled", reason="compiled kernel disabled by TOOLEVAL_NO_KERNEL"
)

SCRIPT = textwrap.dedent(
    """
    import asyncio, threading
    from concurrent.futures import ThreadPoolExecutor
    from tooleval.metrics import bind
    from tooleval.model import Sample, ToolCall

    metric = bind("tool_correctness")
    def sample(n):
        return Sample(
            input="q",
            tools_called=[ToolCall("lookup", {"id": n, "tags": ["a", "b"]})],
            expected_tools=[ToolCall("lookup", {"id": n % 3, "tags": ["a"]})],
        )
    first = metric.score(sample(0))
    assert first.encoded_diagnosis() is not None  # scored by the kernel

    def work(n):
        result = metric.score(sample(n))
        return result.encoded_diagnosis(), result.diagnosis.to_dict()

    # diagnoses written on other threads than the one that scored
    results = [metric.score(sample(n)) for n in range(64)]
    with ThreadPoolExecutor(8) as pool:
        assert len(list(pool.map(work, range(400)))) == 400
        assert len(list(pool.map(lambda r: r.encoded_diagnosis(), results))) == 64

    async def main():
        return await asyncio.gather(*(asyncio.to_thread(work, n) for n in range(64)))
    assert len(asyncio.run(main())) == 64

    for rounds in range(50):  # threads that allocate and end, then new ones
        threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(lambda r: r.encoded_diagnosis(), results[:4]))
    print("ok")
    """
)


def test_scoring_from_new_threads_and_pools_does_not_crash() -> None:
    env = {k: v for k, v in os.environ.items() if k != "TOOLEVAL_NO_KERNEL"}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        timeout=240,
        env=env,
        check=False,
    )
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stderr[-3000:]}"
    assert done.stdout.strip() == "ok"
