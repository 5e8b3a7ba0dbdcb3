"""judge_from_config: plan-file judges, with errors that name the bad key."""

from __future__ import annotations

import pytest

from tooleval.errors import ConfigError
from tooleval.llm import JudgeCache, LocalJudge, OpenAIJudge, judge_from_config
from tooleval.llm.local import PLUMBING_ONLY


def test_openai_judge_from_config(tmp_path, monkeypatch):
    monkeypatch.setenv("JUDGE_KEY", "sk-secret")
    judge = judge_from_config(
        {
            "type": "openai",
            "model": "gpt-4o-mini",
            "api_key_env": "JUDGE_KEY",
            "max_concurrency": 2,
            "requests_per_minute": 60,
            "cache": str(tmp_path / "c.db"),
            "structured_output": False,
        }
    )
    assert isinstance(judge, OpenAIJudge)
    assert judge.max_concurrency == 2
    assert isinstance(judge.cache, JudgeCache) and judge.cache.path == tmp_path / "c.db"
    described = judge.describe()
    assert described["api_key_env"] == "JUDGE_KEY"
    assert "sk-secret" not in repr(described)


def test_local_judge_from_config_does_not_load_the_model():
    judge = judge_from_config({"type": "local", "max_new_tokens": 32, "cache": False})
    assert isinstance(judge, LocalJudge)
    assert judge.cache is None
    assert judge.describe() == {
        "type": "local",
        "model": "local:SmolLM2-135M-Instruct.Q4_1.gguf",
        "max_new_tokens": 32,
        "decoding": "greedy",
        "schema": "constrained",
        "note": PLUMBING_ONLY,
    }
    assert "plumbing only" in PLUMBING_ONLY and "parrots" in PLUMBING_ONLY


@pytest.mark.parametrize(
    ("config", "field", "message"),
    [
        ({"type": "openai"}, "judge.model", "needs a model"),
        (
            {"type": "openai", "model": "m", "temperature": 0, "colour": 1},
            "judge.colour",
            "unknown",
        ),
        ({"type": "openai", "model": "m", "api_key": "sk-x"}, "judge.api_key", "api_key_env"),
        ({"type": "local", "max_new_tokens": 0}, "judge.max_new_tokens", "at least 1"),
        ({"model": "m"}, "judge.type", "expected 'openai' or 'local'"),
        (
            {"type": "openai", "model": "m", "api_key_env": "NOT_SET_ANYWHERE_42"},
            "judge.api_key_env",
            "not set",
        ),
    ],
)
def test_bad_configs_name_the_field(config, field, message):
    with pytest.raises(ConfigError) as info:
        judge_from_config(config)
    assert info.value.field == field
    assert message in str(info.value)


def test_not_a_mapping():
    with pytest.raises(ConfigError, match="expected a mapping"):
        judge_from_config("gpt-4o")
