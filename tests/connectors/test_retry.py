"""Back-off arithmetic and Retry-After parsing (pure functions)."""

from __future__ import annotations

import email.utils
import random

import pytest

from tooleval.connectors.retry import RetryPolicy, parse_retry_after
from tooleval.errors import ConfigError


def test_exponential_with_cap() -> None:
    policy = RetryPolicy(retries=5, backoff=1.0, max_delay=5.0, jitter=0.0)
    assert [policy.delay(n) for n in range(1, 6)] == [1.0, 2.0, 4.0, 5.0, 5.0]
    assert policy.attempts == 6


def test_jitter_stays_within_fraction_and_cap() -> None:
    policy = RetryPolicy(backoff=1.0, max_delay=100.0, jitter=0.25)
    rng = random.Random(7)
    delays = [policy.delay(2, rng=rng) for _ in range(200)]
    assert all(2.0 <= d <= 2.5 for d in delays)
    assert len(set(delays)) > 100  # spread, not lock-step


def test_retry_after_seconds_date_and_cap() -> None:
    now = 1_700_000_000.0
    date = email.utils.formatdate(now + 3, usegmt=True)
    assert parse_retry_after(date, now=now) == pytest.approx(3.0)
    assert parse_retry_after("-4") == 0.0
    assert parse_retry_after(None) is None and parse_retry_after("later") is None
    assert RetryPolicy(max_delay=2.0).delay(1, retry_after="60") == 2.0


@pytest.mark.parametrize(
    ("config", "field"),
    [
        ("x", "connector.retry"),
        ({"backoff": "1s"}, "connector.retry.backoff"),
        ({"jitter": -1}, "connector.retry.jitter"),
        ({"tries": 1}, "connector.retry.tries"),
    ],
)
def test_bad_config(config, field: str) -> None:
    with pytest.raises(ConfigError) as info:
        RetryPolicy.from_config(config, field="connector.retry")
    assert info.value.field == field


def test_number_means_retries() -> None:
    assert RetryPolicy.from_config(4, field="connector.retry").retries == 4
