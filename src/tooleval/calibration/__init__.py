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

# The public names are core's, listed once there (its __all__ is this package's).
from tooleval.calibration.core import *  # noqa: F403
from tooleval.calibration.core import __all__ as __all__
