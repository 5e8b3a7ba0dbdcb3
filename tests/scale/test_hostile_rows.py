"""Ray Data gives the hostile rows of tests/scoring/test_one_pipeline.py the same verdicts."""

from __future__ import annotations

from tests.scoring.test_one_pipeline import METRIC, OPTIONS, _check, _ray_verdicts, _rows


def test_ray_scores_hostile_rows_like_every_entry_point(ray_cluster):
    from tooleval.scale import ray as tray

    dataset = tray.from_rows(_rows(), override_num_blocks=2)
    out = tray.score(dataset, metric=METRIC, batch_size=3, **OPTIONS).take_all()
    _check(_ray_verdicts(out), binary=False)
