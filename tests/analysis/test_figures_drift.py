"""One run, one truth: every surface shows the read model's figures, parsed back and compared.

Generated runs (error rows, unscored rows, categories, repeats with flaky rows, two
metrics) are written to a real SQLite store through ``RunWriter``, rendered through
``runs show``, ``runs list``, the per-metric table, ``--summary-md``, JUnit, the JSON
and CSV exports, the HTML report, the stored gate, ``run``'s own gate lines (pass rate,
pass^k, pass@k, the error budget) and the viewer's pages (runs list, run page metrics
and per-category tables, compare, matrix; FastAPI's TestClient), and each figure read
back from the output is compared with :func:`run_figures`. A surface that counts on its
own (error rows left out, another interval, attempts called rows) fails here.
"""

from __future__ import annotations

import html
import json
import random
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tooleval.analysis.figures import VERDICT, RunFigures, estimate_text, run_figures
from tooleval.model import Result, Sample
from tooleval.store import RowRecord, open_store
from tooleval.store.records import MetricSpec
from tooleval.store.writer import RunWriter

METRICS = ("tool_correctness", "tool_call_f1")
CATEGORIES = ("refund", "status", "billing")
ROWS = 60


def _result(metric: str, verdict: bool | None, score: float | None) -> Result:
    if verdict is None:
        return Result.unscored(metric, "no reference for this row", threshold=0.5)
    return Result(metric=metric, score=score, passed=verdict, threshold=0.5, reason="")


def _store_run(db: Path, name: str, *, k: int, seed: int) -> str:
    """``ROWS`` dataset rows × ``k`` attempts: ~15% error rows (unscored results, as the
    runner stores them), ~8% unscored for one metric, rows of varied difficulty (flaky)."""
    rng = random.Random(seed)
    difficulty = [rng.uniform(0.2, 0.98) for _ in range(ROWS)]
    config = {"repeat": {"n": k, "stride": ROWS}} if k > 1 else {}
    config["gate"] = {"min_pass_rate": 0.5}
    with open_store(db) as store:
        writer = RunWriter.start(
            store,
            name,
            dataset={"path": "cases.jsonl"},
            connector={},
            metrics=[MetricSpec(m, threshold=0.5) for m in METRICS],
            config=config,
            batch_size=100,
        )
        for j in range(k):
            for i in range(ROWS):
                error = "agent answered 503" if rng.random() < 0.15 else None
                results = []
                for m, metric in enumerate(METRICS):
                    if error is not None:
                        results.append(Result.unscored(metric, f"not scored: {error}"))
                    elif m == 1 and i % 12 == 5:
                        results.append(_result(metric, None, None))
                    else:
                        score = round(rng.random() * difficulty[i] + 0.3 * (m == 1), 3)
                        score = min(1.0, score)
                        results.append(_result(metric, score >= 0.5, score))
                sample = Sample(
                    id=f"q{i}",
                    category=CATEGORIES[i % 3],
                    metadata={"dataset_row_id": f"q{i}"},
                )
                writer.add(
                    RowRecord(
                        writer.run_id,
                        j * ROWS + i,
                        f"q{i}" if k == 1 else f"q{i}#{j}",
                        sample,
                        tuple(results),
                        error=error,
                    )
                )
        writer.finish()
        return writer.run_id


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    db = tmp_path_factory.mktemp("drift") / "runs.db"
    once = _store_run(db, "once", k=1, seed=1)
    again = _store_run(db, "once-again", k=1, seed=2)
    repeated = _store_run(db, "repeated", k=3, seed=3)
    store = open_store(db)
    figures = {rid: run_figures(store, store.get_run(rid)) for rid in (once, again, repeated)}
    yield {
        "db": db,
        "url": f"sqlite:///{db}",
        "store": store,
        "once": once,
        "again": again,
        "repeated": repeated,
        "figures": figures,
    }
    store.close()


def _text(markup: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", markup)).split())


def _cells(table: str) -> list[list[str]]:
    """Each body row's cell texts of one HTML table."""
    body = table[table.index("<tbody") :]
    return [
        [_text(c) for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, flags=re.S)]
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, flags=re.S)
    ]


def _table(page: str, css: str) -> str:
    start = page.index(f'class="{css}"')
    return page[start : page.index("</table>", start)]


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.1%}"


def test_the_read_model_counts_error_rows_as_not_passed(runs) -> None:
    """The rule (docs/runs.md): errors in the denominator, unscored rows apart."""
    for figures in runs["figures"].values():
        assert figures.errors > 0
        for metric in METRICS:
            f = figures.get(metric)
            assert f is not None and f.pass_rate is not None
            assert f.errors == figures.errors
            if figures.k == 1:
                assert f.rate == pytest.approx(f.passed / f.counted)
                assert f.pass_rate.interval.method == "wilson"
            elif metric == "tool_correctness":  # every row has its 3 attempts
                assert f.pass_rate.interval.method == "t" and f.pass_rate.n == ROWS
                assert f.pass_hat_k is not None and f.pass_hat_k.interval.method == "wilson"
                assert f.pass_at_k is not None and f.pass_at_k.interval.method == "wilson"
                assert f.flaky
        assert figures.get("tool_call_f1").unscored > 0  # type: ignore[union-attr]


def test_runs_show_prints_the_read_models_intervals(runs, capsys, monkeypatch) -> None:
    from tooleval.cli.main import main

    monkeypatch.setenv("COLUMNS", "400")
    for run_id in (runs["once"], runs["repeated"]):
        figures: RunFigures = runs["figures"][run_id]
        assert main(["runs", "show", run_id, "--store", runs["url"]]) == 0
        out = capsys.readouterr().out
        for metric in METRICS:
            f = figures.get(metric)
            assert f"  {metric}: pass rate {estimate_text(f.pass_rate)}" in out
            for category in CATEGORIES:
                part = figures.get(metric, category)
                assert f"    {category}: {estimate_text(part.pass_rate)}" in out
            if f.pass_hat_k is not None:
                hat, at = f.pass_hat_k, f.pass_at_k
                assert f"pass^3 {hat.value:.1%} {hat.bounds} (wilson)" in out
                assert f"pass@3 {at.value:.1%} {at.bounds} (wilson)" in out
            # the per-metric table: passed, failed, errors, unscored, the rate
            row = next(
                line
                for line in out.splitlines()
                if line.split("│")[0:2][-1:] and line.replace("│", " ").split()[:1] == [metric]
            )
            cells = row.replace("│", " ").split()
            assert cells[2:7] == [
                str(f.passed),
                str(f.failed),
                str(f.errors),
                str(f.unscored),
                _pct(f.rate),
            ]
        # the unscored table counts unscored results only (error rows are errors)
        lines = out.splitlines()
        start = next(i for i, line in enumerate(lines) if "unscored results" in line)
        for metric in METRICS:
            f = figures.get(metric)
            shown = [
                line.replace("│", " ").split()
                for line in lines[start : start + 10]
                if line.replace("│", " ").split()[:1] == [metric]
            ]
            if f.unscored:
                assert shown and shown[0][1] == str(f.unscored), (metric, shown)
            else:
                assert not shown, (metric, shown)
        # the stored gate's floors read the same figure and interval
        gate = next(
            line
            for line in out.splitlines()
            if "tool_correctness: pass rate" in line and ("FAIL" in line or "pass " in line[:8])
        )
        f = figures.get("tool_correctness")
        assert f"{f.rate:.1%}" in gate and f.pass_rate.bounds in gate


def test_runs_list_shows_the_read_models_rates(runs, capsys, monkeypatch) -> None:
    from tooleval.cli.main import main

    monkeypatch.setenv("COLUMNS", "400")
    assert main(["runs", "list", "--store", runs["url"]]) == 0
    out = capsys.readouterr().out
    for run_id, figures in runs["figures"].items():
        line = next(x for x in out.splitlines() if run_id in x)
        for metric in METRICS:
            assert f"{metric} {figures.get(metric).rate:.1%}" in line


def test_summary_md_junit_and_json_carry_the_read_model(runs, tmp_path) -> None:
    from tooleval.analysis.export import write_json, write_junit
    from tooleval.analysis.summary_md import run_summary_markdown

    store = runs["store"]
    for run_id in (runs["once"], runs["repeated"]):
        figures: RunFigures = runs["figures"][run_id]
        run = store.get_run(run_id)
        text = run_summary_markdown(store, run_id)
        junit = ET.parse(write_junit(tmp_path / "j.xml", store, run)).getroot()
        document = json.loads(write_json(tmp_path / "r.json", store, run).read_text())
        for metric in METRICS:
            f = figures.get(metric)
            e = f.pass_rate
            line = next(
                x
                for x in text.splitlines()
                if x.startswith(f"| {metric.replace('_', chr(92) + '_')} ")
            )
            cells = [c.strip() for c in line.strip("|").split("|")]
            assert cells[1:8] == [
                _pct(f.rate),
                f"{e.bounds} {e.interval.method}, n={e.n}, K={e.attempts[1]}",
                str(f.passed),
                str(f.failed),
                str(f.errors),
                str(f.unscored),
                f"{f.mean_score.value:.3f}",
            ]
            suite = next(s for s in junit if s.get("name", "").endswith(f".{metric}"))
            props = {p.get("name"): p.get("value") for p in suite.iter("property")}
            assert float(props["pass_rate"]) == pytest.approx(e.value, abs=1e-6)
            assert float(props["pass_rate_low"]) == pytest.approx(e.interval.low, abs=1e-6)
            assert float(props["pass_rate_high"]) == pytest.approx(e.interval.high, abs=1e-6)
            assert props["interval_method"] == e.interval.method
            assert (props["rows"], props["errors"], props["unscored"]) == (
                str(e.n),
                str(f.errors),
                str(f.unscored),
            )
            summary = document["run"]["summaries"][metric]
            assert summary["pass_rate"] == pytest.approx(e.value)
            assert summary["pass_rate_interval"] == e.interval.to_dict()
            assert (summary["passed"], summary["failed"], summary["errors"]) == (
                f.passed,
                f.failed,
                f.errors,
            )


def _gate_text(gate) -> str:
    import io

    from tooleval.cli._render import make_console, print_gate

    out = io.StringIO()
    print_gate(make_console(out), gate)
    return " ".join(out.getvalue().split())


@pytest.mark.parametrize("confidence", [None, 0.95])
def test_the_run_commands_gate_lines_read_the_read_model(runs, capsys, confidence) -> None:
    """``tooleval run``'s gate (:func:`gate_of_run`, what the runner returns) and the stored
    gate ``runs show`` prints give each floor the read model's figure and interval."""
    from tooleval.analysis.gate import GateSpec, gate_of_run, stored_gate
    from tooleval.analysis.repeats import repeat_of

    store = runs["store"]
    for run_id in (runs["once"], runs["repeated"]):
        figures: RunFigures = runs["figures"][run_id]
        run = store.get_run(run_id)
        repeated = repeat_of(run) is not None
        for gate_on in ("attempts", "pass^k", "pass@k") if repeated else ("attempts",):
            spec = GateSpec(min_pass_rate=0.5, confidence=confidence, gate_on=gate_on)
            gate = gate_of_run(store, run, spec)
            said = _gate_text(gate)
            for metric in METRICS:
                f = figures.get(metric)
                e = {"attempts": f.pass_rate, "pass^k": f.pass_hat_k, "pass@k": f.pass_at_k}[
                    gate_on
                ]
                check = next(c for c in gate.checks if c.name == metric)
                if e is None:  # no figure in the read model: none in the gate either
                    assert check.value is None, (metric, gate_on, check.message)
                    continue
                assert (check.value, check.interval, check.n) == (e.value, e.interval, e.n)
                assert check.message in said  # the line printed is the check's message
                assert f"{e.value:.1%}" in check.message and e.bounds in check.message
                assert f"% {e.interval.method}" in check.message, check.message
                assert f"n={e.n}," in check.message
                if gate_on == "attempts" and f.errors:
                    unit = "attempts" if repeated else "rows"
                    assert f"({f.passed} of {f.counted} {unit}; {f.errors} errors" in said
            errors = next(c for c in gate.checks if c.name == "errors")
            unit = "attempts" if repeated else "rows"
            assert f"errors: {run.error_count}/{run.row_count} {unit}" in errors.message
        stored = stored_gate(run, store=store)  # the plan's gate, as runs show reads it
        assert stored is not None
        spec = GateSpec(min_pass_rate=0.5)
        for mine, theirs in zip(gate_of_run(store, run, spec).checks, stored.checks, strict=True):
            assert (mine.value, mine.interval, mine.message) == (
                theirs.value,
                theirs.interval,
                theirs.message,
            )


def test_the_csv_export_counts_as_the_read_model(runs) -> None:
    import csv
    import io

    from fastapi.testclient import TestClient

    from tooleval.web import create_app

    with TestClient(create_app(runs["store"]), base_url="http://127.0.0.1:8765") as client:
        for run_id in (runs["once"], runs["repeated"]):
            figures: RunFigures = runs["figures"][run_id]
            text = client.get(f"/runs/{run_id}/export.csv").text
            rows = list(csv.DictReader(io.StringIO(text)))
            assert len(rows) == runs["store"].get_run(run_id).row_count
            for metric in METRICS:
                f = figures.get(metric)
                counts = {"passed": 0, "failed": 0, "errors": 0, "unscored": 0}
                for row in rows:
                    if row["error"]:
                        counts["errors"] += 1
                    elif row[f"{metric}.score"] == "":
                        counts["unscored"] += 1
                    else:
                        counts["passed" if row[f"{metric}.passed"] == "True" else "failed"] += 1
                assert counts == {
                    "passed": f.passed,
                    "failed": f.failed,
                    "errors": f.errors,
                    "unscored": f.unscored,
                }


def test_clusters_count_the_same_rows_everywhere(runs, capsys, monkeypatch) -> None:
    """Failure clusters (:func:`cluster_failures`, one per cause) in ``runs show``, the HTML
    report and the viewer's run page: the same failing rows, clusters and row counts."""
    from fastapi.testclient import TestClient

    from tooleval.analysis.clusters import cluster_failures
    from tooleval.cli.main import main
    from tooleval.report.static import build_report
    from tooleval.web import create_app

    monkeypatch.setenv("COLUMNS", "400")
    store = runs["store"]
    with TestClient(create_app(store), base_url="http://127.0.0.1:8765") as client:
        for run_id in (runs["once"], runs["repeated"]):
            rows = list(store.iter_rows(run_id))
            failing = [r for r in rows if r.passed is not True]
            clusters = cluster_failures(failing, total_rows=len(rows))
            assert sum(c.count for c in clusters) == len(failing)
            title = f"{len(failing)} failing rows → {len(clusters)} clusters"
            assert main(["runs", "show", run_id, "--store", runs["url"]]) == 0
            shown = capsys.readouterr().out
            assert title in shown
            table = shown[shown.index(title) :]
            counts = [
                int(cells[1])
                for cells in (line.replace("│", " ").split() for line in table.splitlines())
                if len(cells) > 1 and cells[1].isdigit()
            ][: len(clusters)]
            assert counts == [c.count for c in clusters]
            for page in (build_report(store, run_id), client.get(f"/runs/{run_id}").text):
                text = _text(page)
                assert title in text
                for c in clusters:
                    assert f"{c.count} {c.detail}" in text, (c.count, c.detail)


def _check_metric_table(page: str, figures: RunFigures) -> None:
    rows = {r[0]: r for r in _cells(_table(page, "summary"))}
    for metric in METRICS:
        f = figures.get(metric)
        e = f.pass_rate
        cells = rows[metric]
        assert cells[3:7] == [str(f.passed), str(f.failed), str(f.errors), str(f.unscored)]
        assert cells[8] == _pct(f.rate)
        assert f"{e.bounds} {e.interval.method}, n={e.n} {figures.unit}" in cells[9]


def _check_category_table(page: str, figures: RunFigures) -> None:
    start = page.index("<h2>Per category</h2>")
    rows = {r[0]: r for r in _cells(page[start : page.index("</table>", start)])}
    for category in CATEGORIES:
        verdict = figures.get(VERDICT, category)
        cells = rows[category]
        assert cells[2:5] == [str(verdict.passed), str(verdict.failed), str(verdict.errors)]
        # a rate cell is the rate, then its interval bar's accessible text
        assert cells[6].split()[0] == _pct(verdict.rate)
        for m, metric in enumerate(METRICS):
            part = figures.get(metric, category)
            assert cells[7 + m].split()[0] == _pct(part.rate)
            e = part.pass_rate.interval
            assert f"interval {100 * e.low:.1f}–{100 * e.high:.1f}% ({e.method})" in cells[7 + m]


def test_html_report_renders_the_read_model(runs) -> None:
    from tooleval.report.static import build_report

    for run_id in (runs["once"], runs["repeated"]):
        page = build_report(runs["store"], run_id)
        _check_metric_table(page, runs["figures"][run_id])
        _check_category_table(page, runs["figures"][run_id])


def test_viewer_pages_render_the_read_model(runs) -> None:
    from fastapi.testclient import TestClient

    from tooleval.web import create_app

    store = runs["store"]
    with TestClient(create_app(store), base_url="http://127.0.0.1:8765") as client:
        front = client.get("/").text
        for run_id, figures in runs["figures"].items():
            row = next(r for r in _cells(_table(front, "runs")) if run_id in r[1])
            for metric in METRICS:
                assert f"{metric} {figures.get(metric).rate:.1%}" in row[6]
            page = client.get(f"/runs/{run_id}").text
            _check_metric_table(page, figures)
            _check_category_table(page, figures)
        a, b, c = runs["once"], runs["again"], runs["repeated"]
        for address, sides in (
            (f"/compare?a={a}&b={b}", (a, b)),
            (f"/compare?run={a}&run={b}&run={c}", (a, b, c)),
        ):
            page = client.get(address).text
            rows = _cells(_table(page, "intervals"))
            for metric in METRICS:
                line = next(r for r in rows if r[0] == metric)
                for i, run_id in enumerate(sides):
                    e = runs["figures"][run_id].get(metric).pass_rate
                    assert line[1 + i].startswith(f"{e.value:.1%} {e.bounds} ")
                    assert f"({e.interval.method})" in line[1 + i]


# ------------------------------------------- a scored file: score --table, EvaluationResult


def _scored_file(path: Path) -> Path:
    """Rows scored from a file (no error rows there): failures, partial scores, unscored."""
    rng = random.Random(7)
    tools = ["lookup", "refund", "cancel", "notify"]
    lines = []
    for i in range(90):
        expected = rng.sample(tools, rng.randint(1, 3))
        called = expected if rng.random() < 0.55 else rng.sample(tools, rng.randint(1, 3))
        row = {"id": f"f{i}", "category": CATEGORIES[i % 3], "tools_called": called}
        row["expected_tools"] = None if i % 11 == 4 else expected
        lines.append(json.dumps(row) + "\n")
    path.write_text("".join(lines))
    return path


def _file_figures(tmp_path: Path, path: Path) -> tuple[RunFigures, object, object]:
    """The file evaluated both ways (the kernel's stream and the Python rows) and its results
    stored as a run: the run's read model and both EvaluationResults."""
    import tooleval

    streamed = tooleval.evaluate(str(path), list(METRICS))
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    in_memory = tooleval.evaluate(rows, list(METRICS))
    with open_store(tmp_path / "file.db") as store:
        writer = RunWriter.start(
            store,
            "file",
            dataset={"path": str(path)},
            connector={},
            metrics=[MetricSpec(m) for m in METRICS],
            config={},
            batch_size=100,
        )
        by_row: dict[str, list[Result]] = {}
        for row in in_memory:
            by_row.setdefault(row.row_id, []).append(row.result)
        for index, (row_id, results) in enumerate(by_row.items()):
            sample = Sample(id=row_id, category=rows[index]["category"])
            writer.add(RowRecord(writer.run_id, index, row_id, sample, tuple(results)))
        writer.finish()
        figures = run_figures(store, store.get_run(writer.run_id))
    return figures, streamed, in_memory


def test_score_table_and_evaluation_result_render_the_read_model(tmp_path, capsys) -> None:
    from tests.evaluation.test_evaluate_formats import _write

    import tooleval
    from tooleval.cli.main import main

    path = _scored_file(tmp_path / "cases.jsonl")
    figures, streamed, in_memory = _file_figures(tmp_path, path)
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    table = tooleval.evaluate(_write(tmp_path, rows, "csv"), list(METRICS))  # score_file too
    for result in (streamed, in_memory, table):
        for metric in METRICS:
            f, s = figures.get(metric), result.summaries[metric]  # type: ignore[attr-defined]
            assert f is not None and f.pass_rate is not None and f.mean_score is not None
            assert (s.passed, s.failed, s.unscored) == (f.passed, f.failed, f.unscored)
            assert s.pass_rate == pytest.approx(f.rate)
            assert s.interval == pytest.approx(
                (f.pass_rate.interval.low, f.pass_rate.interval.high)
            )
            assert s.mean_score == pytest.approx(f.mean_score.value)
    args = ["score", str(path), "--table", "--no-progress"]
    for metric in METRICS:
        args += ["--metric", metric]
    assert main(args) == 0
    shown = {}
    for line in capsys.readouterr().out.splitlines():
        cells = [c.strip() for c in line.strip("│┃ ").split("│")]
        if cells and cells[0] in METRICS and len(cells) == 9:
            shown[cells[0]] = cells
    assert set(shown) == set(METRICS)
    for metric, cells in shown.items():
        f = figures.get(metric)
        assert f is not None and f.pass_rate is not None and f.mean_score is not None
        counts = [int(c.replace(",", "")) for c in cells[1:5]]
        assert counts == [f.passed + f.failed + f.unscored, f.passed, f.failed, f.unscored]
        assert cells[5] == _pct(f.rate) and cells[6] == f.pass_rate.bounds
        assert int(cells[7]) == f.pass_rate.n and cells[8] == f"{f.mean_score.value:.3f}"
