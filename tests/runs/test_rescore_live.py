"""A rescore with a judge is a live run: it holds a lease, stores rows as judged, shows progress.

The judge is an OpenAI-compatible server on 127.0.0.1 that holds one row's reply
until the test releases it: while it waits, the new run is running (its lease
held by a live process, as ``runs list`` and the viewer show it), the rows
judged before it are stored, and the progress has counted them. Every wait has
a deadline; nothing is timed.
"""

from __future__ import annotations

import io
import json
import threading
import time
from typing import Any

from tests.judge_server import conversation
from tests.openai_server import OpenAIServer, completion, prompt_text

from tooleval.formats.rows import sample_from_row
from tooleval.llm.openai_judge import OpenAIJudge
from tooleval.report.run_tables import run_status
from tooleval.runs.progress import LineProgress
from tooleval.runs.rescore import parse_metric_specs, rescore_run
from tooleval.store import MetricSpec, RowRecord, open_store

ROWS = ["first", "second", "HOLD-PLEASE", "fourth"]


class HoldingJudge(OpenAIServer):
    """Answers at once, except the row whose prompt holds HOLD-PLEASE: that one waits."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.holding = threading.Event()
        super().__init__(self._reply)

    def _answer(self, body: dict[str, Any]) -> dict[str, Any]:
        self.requests.append(body)  # no lock: the held reply must not hold up the others
        return self._reply(body, len(self.requests))

    def _reply(self, body: dict[str, Any], number: int) -> dict[str, Any]:
        if "HOLD-PLEASE" in prompt_text(body):
            self.holding.set()
            self.release.wait(60)
        text = json.dumps({"evidence": "the tool result", "accomplished": True, "reason": "ok"})
        return completion({"role": "assistant", "content": text}, number=number)

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        super().__exit__(*exc)


def _wait(condition, what: str, deadline: float = 60.0) -> None:
    end = time.monotonic() + deadline
    while not condition():
        assert time.monotonic() < end, f"gave up waiting: {what}"
        time.sleep(0.05)


def test_a_judged_rescore_is_live_while_it_runs(tmp_path):
    from fastapi.testclient import TestClient

    from tooleval.web import create_app

    store = open_store(tmp_path / "runs.db")
    source = store.create_run(
        "recorded", dataset={}, connector={}, metrics=[MetricSpec("tool_correctness")]
    )
    for index, row_id in enumerate(ROWS):
        sample = sample_from_row(conversation(row_id, f"cancelled {row_id}", "Done."))
        store.add_row(source, RowRecord(source, index, row_id, sample))
    store.finish_run(source)

    lines = io.StringIO()
    progress = LineProgress(lines, every=1)
    found: dict[str, Any] = {}
    with HoldingJudge() as server:
        judge = OpenAIJudge(
            "served", base_url=server.base_url, api_key="k", max_retries=0, cache=False
        )
        specs = parse_metric_specs(["task_success"])
        worker = threading.Thread(
            target=lambda: found.setdefault(
                "id",
                rescore_run(store, source, specs, judge=judge, concurrency=1, progress=progress),
            ),
            daemon=True,
        )
        worker.start()
        _wait(server.holding.is_set, "the judge to be asked about the held row")
        (new,) = [r for r in store.list_runs() if r.id != source]
        _wait(lambda: store.count_rows(new.id) == 2, "the two rows judged before it")
        assert new.status == "running"
        holder = store.lease_holder(new.id)
        assert holder is not None and holder["alive"]
        status = run_status(store, store.get_run(new.id))
        assert "running" in " ".join(map(str, status))
        with TestClient(create_app(store), base_url="http://127.0.0.1:8765") as client:
            page = client.get(f"/runs/{new.id}").text
        assert "no live process" not in page
        assert "running" in page
        assert f"run {new.id}: 2/4 rows" in lines.getvalue()
        server.release.set()
        worker.join(timeout=60)
        assert not worker.is_alive()
    assert found["id"] == new.id
    done = store.get_run(new.id)
    assert done.status == "finished" and done.row_count == 4
    holder = store.lease_holder(new.id)
    assert holder is None or not holder.get("alive")
    assert lines.getvalue().strip().splitlines()[-1] == f"run {new.id}: 4/4 rows, 0 errors"
    store.close()
