"""Named presets for the options that decide verdicts.

The defaults of some metrics keep their first published behaviour (``tool_correctness``
passes at 0.5 with any order, as DeepEval's does), so with defaults a cancel of the
wrong order can pass. A preset names the options a job wants, once:

``release``
    a release gate: the calls in the expected order (``order: strict``), every call
    right (``threshold: 1``), arguments compared on the keys the reference gives, the
    keys that state the intent (``extra_keys: ignore``: a request id the agent adds is
    not a mismatch; a missing or different expected key still is).

A preset sets each of its options on every metric that declares that option; an option
given explicitly (``--option``, a plan's metric options, ``evaluate()``'s pairs) wins.
``score --preset``, a plan's ``preset:``, ``evaluate(preset=...)`` and the pytest
plugin's ``preset=`` all go through :func:`apply_preset`.

>>> apply_preset("release", {"tool_correctness": {}})
{'tool_correctness': {'order': 'strict', 'extra_keys': 'ignore', 'threshold': 1.0}}
>>> apply_preset("release", {"tool_correctness": {"threshold": 0.5}})["tool_correctness"]["threshold"]
0.5
>>> apply_preset("release", {"tool_call_f1": {}})
{'tool_call_f1': {'extra_keys': 'ignore', 'threshold': 1.0}}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tooleval.errors import ConfigError, did_you_mean

__all__ = ["PRESETS", "apply_preset", "preset_options"]

# preset -> option -> value, each set on the metrics that declare the option
PRESETS: dict[str, dict[str, Any]] = {
    "release": {"order": "strict", "extra_keys": "ignore", "threshold": 1.0},
}


def _preset(name: str, field: str) -> dict[str, Any]:
    if not isinstance(name, str) or name not in PRESETS:
        raise ConfigError(
            f"unknown preset {name!r}{did_you_mean(str(name), PRESETS)}; "
            f"expected one of {', '.join(PRESETS)}",
            field=field,
        )
    return PRESETS[name]


def preset_options(
    preset: str, metric: str, given: Mapping[str, Any] | None = None, *, field: str = "preset"
) -> dict[str, Any]:
    """``given`` (under the metric's current option names) with the preset's values filled in.

    An unknown metric is left to the registry to refuse, with its own message.
    """
    from tooleval.metrics.registry import get_metric

    values = _preset(preset, field)
    given = dict(given or {})
    try:
        info = get_metric(metric)
    except ConfigError:
        return given
    current = info.aliases.translate(metric, given)
    for option, value in values.items():
        if option in info.params and option not in current:
            current[option] = value
    return current


def apply_preset(
    preset: str | None, options: Mapping[str, Mapping[str, Any]], *, field: str = "preset"
) -> dict[str, dict[str, Any]]:
    """Options by metric, with ``preset``'s values where none was given (None: unchanged)."""
    if preset is None:
        return {name: dict(given) for name, given in options.items()}
    _preset(preset, field)
    return {
        name: preset_options(preset, name, given, field=field) for name, given in options.items()
    }
