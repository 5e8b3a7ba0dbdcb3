"""output_contains."""

from __future__ import annotations

import pytest

from tooleval.errors import ConfigError
from tooleval.metrics import output_contains, score_sample
from tooleval.model import AssistantMessage, Sample


def test_all_any_and_case():
    out = "Your order 4471 has been Cancelled."
    assert output_contains(["4471", "cancelled"], out).score == 1.0
    assert output_contains(["4471", "cancelled"], out, case_sensitive=True).score == 0.0
    r = output_contains(["4471", "refund"], out)
    assert r.score == 0.0 and r.diagnosis.details["missing_values"] == ["refund"]
    assert "lacks 'refund'" in r.reason
    r = output_contains(["4471", "refund"], out, require="any")
    assert r.score == 1.0 and "lacks" not in r.reason
    assert output_contains(["nope", "refund"], out, require="any").score == 0.0


def test_values_forms():
    assert output_contains("4471", "order 4471").score == 1.0
    assert output_contains([4471], "order 4471").score == 1.0
    assert output_contains(["x"], None).score == 0.0


@pytest.mark.parametrize("values", [None, [], [""], [None]])
def test_no_values_is_unscored(values):
    r = output_contains(values, "text")
    assert r.score is None and "no values" in r.reason


def test_bad_options():
    with pytest.raises(ConfigError):
        output_contains(["a"], "a", require="most")
    with pytest.raises(ConfigError):
        output_contains(["a"], "a", case_sensitive="no")
    with pytest.raises(ConfigError):
        output_contains(42, "a")  # type: ignore[arg-type]


def test_sample_form_reads_row_metadata_or_option():
    sample = Sample(
        messages=[AssistantMessage("Order 4471 cancelled")], metadata={"output_contains": ["4471"]}
    )
    r = score_sample("output_contains", sample)
    assert r.score == 1.0 and r.diagnosis.details["values_source"] == "metadata.output_contains"
    r = score_sample("output_contains", sample, values=["refund"])
    assert r.score == 0.0 and r.params["values"] == ["refund"]
    assert score_sample("output_contains", Sample(output="x")).score is None
