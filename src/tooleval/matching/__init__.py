"""Argument matchers and call alignment.

* matchers (:mod:`~tooleval.matching.values`): :class:`Exact`,
  :class:`Normalized`, :class:`Numeric`, :class:`Similarity`, :class:`Ignore`,
  :class:`CallableMatcher`, BFCL-style ``AnyOf``
  (:mod:`tooleval.model.values`), and the structural :class:`Unordered`
  (lists as multisets) and :class:`NumericText` (``"2"`` equals ``2``)
  (:mod:`tooleval.matching.structural`);
* configuration (:mod:`~tooleval.matching.config`): :func:`resolve_matcher`,
  :func:`resolve_comparator` and :class:`ArgumentComparator` turn an ``args=``
  option (name, mapping, JSON text, Matcher or callable) into per-tool,
  per-key comparisons;
* alignment (:mod:`~tooleval.matching.assignment`,
  :mod:`~tooleval.matching.alignment`): optimal assignment (Hungarian),
  weighted longest common subsequence and partial-order pairing.

>>> resolve_matcher("normalized")("Paris ", "paris")
1.0
"""

from tooleval.matching.alignment import CallTable, order_violations
from tooleval.matching.assignment import max_weight_matching, max_weight_subsequence
from tooleval.matching.base import Matcher
from tooleval.matching.config import (
    ArgumentComparator,
    ArgumentComparison,
    matcher_names,
    register_matcher,
    resolve_comparator,
    resolve_matcher,
)
from tooleval.matching.partial_order import max_weight_partial_order
from tooleval.matching.structural import NumericText, Unordered
from tooleval.matching.values import (
    CallableMatcher,
    Exact,
    Ignore,
    Normalized,
    Numeric,
    Similarity,
    deep_equal,
)
from tooleval.model import MISSING

__all__ = [
    "MISSING",
    "ArgumentComparator",
    "CallTable",
    "CallableMatcher",
    "ArgumentComparison",
    "Exact",
    "Ignore",
    "Matcher",
    "Normalized",
    "Numeric",
    "NumericText",
    "Similarity",
    "Unordered",
    "deep_equal",
    "matcher_names",
    "max_weight_matching",
    "max_weight_partial_order",
    "max_weight_subsequence",
    "order_violations",
    "register_matcher",
    "resolve_comparator",
    "resolve_matcher",
]
