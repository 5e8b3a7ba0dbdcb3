"""Noise-aware figures: intervals on every rate, paired comparisons, power, verdicts.

Pure functions over numbers (per-row attempt values), so any stored or
in-memory result can be summarized; the standard library suffices (numpy,
when installed, only speeds the resampling up). docs/statistics.md explains
each figure; the reference is Miller (2024), "Adding Error Bars to Evals",
arXiv 2411.00640.

>>> from tooleval.stats import summarize, compare_paired
>>> s = summarize([[1.0]] * 17 + [[0.0]] * 3)
>>> f"{s.mean:.0%} [{s.interval.low:.1%}, {s.interval.high:.1%}]"
'85% [64.0%, 94.8%]'
"""

from tooleval.stats.intervals import (
    Interval,
    clopper_pearson_interval,
    clustered_se,
    mean_se,
    t_interval,
    wilson_interval,
)
from tooleval.stats.paired import PairedComparison, compare_paired
from tooleval.stats.power import mde, mde_from_se, repeats_needed, rows_needed
from tooleval.stats.resample import BootstrapInterval, SignFlipTest, bca_interval, sign_flip_test
from tooleval.stats.significance import (
    McNemar,
    holm,
    mcnemar,
    newcombe_paired_interval,
    paired_t_p,
)
from tooleval.stats.summary import (
    FEW_ROWS,
    KEstimate,
    RateSummary,
    pass_at_k,
    pass_hat_k,
    row_rates,
    summarize,
)
from tooleval.stats.verdict import (
    ON_UNCERTAIN,
    CompareVerdict,
    ThresholdVerdict,
    compare_verdict,
    non_inferiority,
    threshold_verdict,
)

__all__ = [
    "FEW_ROWS",
    "ON_UNCERTAIN",
    "BootstrapInterval",
    "CompareVerdict",
    "Interval",
    "KEstimate",
    "McNemar",
    "PairedComparison",
    "RateSummary",
    "SignFlipTest",
    "ThresholdVerdict",
    "bca_interval",
    "clopper_pearson_interval",
    "clustered_se",
    "compare_paired",
    "compare_verdict",
    "holm",
    "mcnemar",
    "mde",
    "mde_from_se",
    "mean_se",
    "newcombe_paired_interval",
    "non_inferiority",
    "paired_t_p",
    "pass_at_k",
    "pass_hat_k",
    "repeats_needed",
    "row_rates",
    "rows_needed",
    "sign_flip_test",
    "summarize",
    "t_interval",
    "threshold_verdict",
    "wilson_interval",
]
