"""bench/judges/calibration_sets.py, the script behind docs/judges.md's figures, still runs.

Two rows of each shipped set judged by the local judge's runtime with a small
random-weight GGUF: every figure the docs quote is printed, and they agree with
each other (the confusion adds up, TPR/TNR are its ratios).
"""

from __future__ import annotations

import importlib.util
import json

import pytest
from tests.llm.tiny_gguf import write_tiny_llama

from tooleval.calibration.sets import CALIBRATION_SETS

pytest.importorskip("gguf", reason="the local judge's runtime needs the gguf package")


def test_the_bench_prints_every_figure_of_each_set(repo_root, shared_data, tmp_path, capsys):
    spec = importlib.util.spec_from_file_location(
        "bench_calibration_sets", repo_root / "bench" / "judges" / "calibration_sets.py"
    )
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    tiny = write_tiny_llama(tmp_path / "tiny.gguf", context=512)
    out = tmp_path / "figures.json"
    args = ["--rows", "2", "--data", str(shared_data), "--model-path", str(tiny)]
    assert bench.main([*args, "--max-new-tokens", "8", "--json", str(out)]) == 0
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert json.loads(out.read_text()) == printed
    assert [line["set"] for line in printed] == list(CALIBRATION_SETS)
    for line in printed:
        c = line["confusion"]
        assert line["rows"] == 2 and line["judged"] == c["tp"] + c["fn"] + c["fp"] + c["tn"] == 2
        assert line["parsed"] == 1.0 and line["not_judged"] == 0
        assert line["tpr"][0] == pytest.approx(c["tp"] / (c["tp"] + c["fn"]), abs=1e-3)
        assert line["tnr"][0] == pytest.approx(c["tn"] / (c["fp"] + c["tn"]), abs=1e-3)
        assert line["rows_per_cpu_minute"] is None or line["rows_per_cpu_minute"] > 0
        assert line["model"] == "local:tiny.gguf"
