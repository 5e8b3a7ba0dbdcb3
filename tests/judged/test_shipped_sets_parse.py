"""The local judge answers every row of every shipped calibration set with a parsable verdict.

Its reply is constrained to the verdict schema while it is written, so no
prompt can make it unparsable. Checked here on every row of each set (not a
sample: tau-airline's 200, tau2-airline's 50, bfcl-tools-error's 2,348), through
:func:`tooleval.calibration.calibrate` as ``judge calibrate --set`` runs it, with the
local judge's runtime serving a small llama GGUF of random weights (a model with
no idea of JSON is the hardest case for the constraint, and cheap enough to read
every row; prompts longer than its 512-token context are cut, as SmolLM2's are
past 8,192). Every row gets a verdict on the first call: no re-ask, nothing
unscored. SmolLM2 itself on 20 rows of each set: bench/judges/calibration_sets.py,
docs/judges.md.
"""

from __future__ import annotations

import pytest
from tests.llm.tiny_gguf import write_tiny_llama

from tooleval.calibration import calibrate
from tooleval.calibration.sets import CALIBRATION_SETS, set_rows, store_set
from tooleval.llm import LocalJudge
from tooleval.store import open_store

pytest.importorskip("gguf", reason="the local judge's runtime needs the gguf package")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return write_tiny_llama(tmp_path_factory.mktemp("gguf") / "tiny.gguf", context=512)


@pytest.mark.parametrize("name", sorted(CALIBRATION_SETS))
def test_every_row_of_the_set_gets_a_parsed_verdict(name, tiny, shared_data, tmp_path):
    _, every = set_rows(name, data=shared_data, rows=0)
    judge = LocalJudge(tiny, cache=False, max_new_tokens=8)
    with open_store(tmp_path / "runs.db") as store:
        run_id = store_set(store, name, data=shared_data, rows=0)
        report = calibrate(store, run_id, CALIBRATION_SETS[name].metric, judge=judge, save=False)
    assert report.labels == len(every)
    assert report.unscored == []  # no row left without a verdict
    assert report.confusion.n == len(every)
    usage = judge.usage.to_dict()
    assert usage["calls"] == len(every)  # one call a row: the first reply always parsed
    assert usage["cached_calls"] == 0
