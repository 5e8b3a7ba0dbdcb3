"""Scale-out: run metrics and detectors on Ray Data (``tooleval.scale.ray``).

Nothing here imports Ray until :mod:`tooleval.scale.ray` functions run; the
per-batch work lives in :mod:`tooleval.scale.rows` and needs no Ray.
"""
