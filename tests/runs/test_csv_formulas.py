"""Every CSV export defuses formula cells: ``runs export --csv`` and the viewer share one rule.

A stored run whose ids, categories, reasons and errors start with formula
characters is exported both ways; every cell read back with the csv module
is either free of a formula start or carries the ``'`` prefix.
"""

from __future__ import annotations

import csv
import io

from tooleval.cli.main import main
from tooleval.model import Result, Sample
from tooleval.store import RowRecord, open_store
from tooleval.textsafe import FORMULA_STARTS, csv_cell
from tooleval.web.export import export_lines

HOSTILE = [
    '=HYPERLINK("http://x","y")',
    "+SUM(1,2)",
    "-2+3",
    "@x",
    "\tx",
    "\rx",
    "\nx",
    "  =1+1",
    "\uff1d1+1",
    "=cmd|' /C calc'!A0",
]


def _defused(cell: str) -> bool:
    return cell.startswith("'") or cell.lstrip(" ")[:1] not in FORMULA_STARTS or not cell


def _store(tmp_path):
    store = open_store(tmp_path / "r.db")
    run_id = store.create_run("formulas", dataset={}, connector={}, metrics=[])
    for i, text in enumerate(HOSTILE):
        sample = Sample(input=text, id=text, category=text, output=text)
        result = Result("m", 0.5, False, reason=text)
        store.add_row(run_id, RowRecord(run_id, i, text, sample, (result,), error=text))
    return store, run_id


def _assert_all_defused(text: str) -> int:
    cells = [c for line in csv.reader(io.StringIO(text, newline="")) for c in line]
    bad = [c for c in cells if not _defused(c)]
    assert not bad, bad
    return len(cells)


def test_runs_export_csv_defuses_every_cell(tmp_path):
    store, run_id = _store(tmp_path)
    store.close()
    out = tmp_path / "rows.csv"
    assert (
        main(["runs", "export", run_id, "--csv", str(out), "--store", str(tmp_path / "r.db")]) == 0
    )
    text = out.read_text(encoding="utf-8")
    assert _assert_all_defused(text) > len(HOSTILE) * 5
    assert "'=HYPERLINK" in text and "'-2+3" in text and "'@x" in text


def test_the_viewer_export_uses_the_same_rule(tmp_path):
    store, run_id = _store(tmp_path)
    run = store.get_run(run_id)
    text = "".join(export_lines("csv", run, store.iter_rows(run_id)))
    store.close()
    assert _assert_all_defused(text) > len(HOSTILE) * 5


def test_numbers_are_written_as_numbers():
    assert [csv_cell(v) for v in (-0.5, 3, True, None)] == ["-0.5", "3", "True", ""]
    assert csv_cell("refund") == "refund" and csv_cell("a=b") == "a=b"
