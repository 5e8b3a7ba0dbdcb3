"""Judges measured against human labels, and judged pass rates corrected for their error.

:func:`calibrate` compares a judged metric's verdicts with the labels people
gave the same rows of a stored run (``tooleval judge labels import``): either
the verdicts the run stored, or fresh ones from a judge you pass. The report
(agreement, Cohen's kappa, TPR and TNR with Wilson intervals, the confusion
matrix, the rows the judge got wrong, the rows it could not judge) is saved
in the store under the judge's identity: model, metric, prompt version
(:func:`tooleval.judged.registration.prompt_version`) and options.

:func:`find_calibration` finds the newest calibration of a judge identity,
and :func:`corrected_pass_rate` corrects a run's judged pass rate with it
(Rogan-Gladen, see :mod:`tooleval.stats.calibration`).
"""

from tooleval.calibration.core import (
    CalibrationReport,
    calibrate,
    corrected_line,
    corrected_pass_rate,
    describe_calibration,
    find_calibration,
    gate_calibrations,
    judge_identity,
    run_calibrations,
)

__all__ = [
    "CalibrationReport",
    "calibrate",
    "corrected_line",
    "corrected_pass_rate",
    "describe_calibration",
    "find_calibration",
    "gate_calibrations",
    "judge_identity",
    "run_calibrations",
]
