"""Topic adherence arithmetic from recorded judge replies (no model involved)."""

from __future__ import annotations

import pytest

from tooleval.errors import ConfigError, JudgeError
from tooleval.judged import atopic_adherence, topic_adherence
from tooleval.judged.topic_adherence import count_topic_verdicts, topic_adherence_score
from tooleval.model import AssistantMessage, Sample, ToolCall, ToolMessage, UserMessage

# The relativity / chocolate-cake conversation: two science requests answered, one
# off-topic recipe answered too.
SCIENCE = Sample(
    messages=[
        UserMessage("Tell me about Einstein's theory of relativity."),
        AssistantMessage("", (ToolCall("document_search", {"query": "relativity"}, id="1"),)),
        ToolMessage("Found: Relativity: The Special and the General Theory", tool_call_id="1"),
        AssistantMessage("It explains how mass curves spacetime."),
        UserMessage("And the general theory specifically?"),
        AssistantMessage("The general theory describes gravity as curvature."),
        UserMessage("By the way, a good chocolate cake recipe?"),
        AssistantMessage("", (ToolCall("recipe_search", {"query": "chocolate cake"}, id="2"),)),
        ToolMessage("flour, sugar, cocoa... bake 30 min", tool_call_id="2"),
        AssistantMessage("Here is a chocolate cake recipe: ..."),
    ],
    reference_topics=["science", "physics"],
)

TOPICS = {"topics": ["theory of relativity", "general relativity", "chocolate cake recipe"]}
ALL_ANSWERED = {
    "verdicts": [
        {"subject": 1, "answered": True, "on_topic": True},
        {"subject": 2, "answered": True, "on_topic": True},
        {"subject": 3, "answered": True, "on_topic": False},
    ]
}


def test_precision_counts_the_off_topic_answer(recorded):
    judge = recorded(TOPICS, ALL_ANSWERED)
    result = topic_adherence(SCIENCE, judge=judge)
    assert result.score == 2 / 3
    assert result.passed is False
    details = result.diagnosis.details
    assert details["counts"] == {
        "answered_on": 2,
        "answered_off": 1,
        "refused_on": 0,
        "refused_off": 0,
    }
    assert details["recall"] == 1.0
    assert "chocolate cake recipe" in result.reason
    assert [e["step"] for e in details["exchanges"]] == ["extract_topics", "topic_verdicts"]


def test_recall_is_exactly_one_when_nothing_on_topic_was_refused(recorded):
    result = topic_adherence(SCIENCE, judge=recorded(TOPICS, ALL_ANSWERED), measure="recall")
    assert result.score == 1.0  # exact, not 0.99999999995
    assert result.passed is True
    assert result.params == {"measure": "recall", "empty": "unscored"}


def test_f1_from_counts(recorded):
    verdicts = {
        "verdicts": [
            {"subject": 1, "answered": True, "on_topic": True},
            {"subject": 2, "answered": False, "on_topic": True},
            {"subject": 3, "answered": True, "on_topic": False},
        ]
    }
    result = topic_adherence(SCIENCE, judge=recorded(TOPICS, verdicts), measure="f1")
    # precision 1/2, recall 1/2 -> f1 1/2
    assert result.score == 0.5


def test_perfect_row_scores_exactly_one_in_every_mode(recorded):
    perfect = {
        "verdicts": [
            {"subject": 1, "answered": True, "on_topic": True},
            {"subject": 2, "answered": True, "on_topic": True},
            {"subject": 3, "answered": False, "on_topic": False},
        ]
    }
    for measure in ("precision", "recall", "f1"):
        result = topic_adherence(SCIENCE, judge=recorded(TOPICS, perfect), measure=measure)
        assert result.score == 1.0


def test_reference_topics_argument_wins_and_reaches_the_prompt(recorded):
    judge = recorded(TOPICS, ALL_ANSWERED)
    topic_adherence(SCIENCE, ["cooking"], judge=judge)
    assert '["cooking"]' in judge.prompts[1][1]["content"]
    assert "1. theory of relativity" in judge.prompts[1][1]["content"]
    # The verdict step reads the conversation, not only the topic list.
    assert "TOOL CALL #2: recipe_search" in judge.prompts[1][1]["content"]


def test_no_topic_extracted_is_unscored(recorded):
    result = topic_adherence(SCIENCE, judge=recorded({"topics": ["  ", ""]}))
    assert result.score is None
    assert "no topic" in result.reason


def test_undefined_precision_is_unscored_unless_empty_says_otherwise(recorded):
    refused = {
        "verdicts": [
            {"subject": 1, "answered": False, "on_topic": True},
            {"subject": 2, "answered": False, "on_topic": True},
            {"subject": 3, "answered": False, "on_topic": False},
        ]
    }
    result = topic_adherence(SCIENCE, judge=recorded(TOPICS, refused))
    assert result.score is None
    assert "precision is undefined" in result.reason
    scored = topic_adherence(SCIENCE, judge=recorded(TOPICS, refused), empty="zero")
    assert scored.score == 0.0 and "empty='zero'" in scored.reason
    # the seed's zero_division=0.0 is an alias of empty="zero": the same result
    assert topic_adherence(SCIENCE, judge=recorded(TOPICS, refused), zero_division=0.0) == scored
    recall = topic_adherence(SCIENCE, judge=recorded(TOPICS, refused), measure="recall")
    assert recall.score == 0.0


def test_undefined_recall_when_nothing_was_on_topic(recorded):
    off = {"verdicts": [{"subject": i, "answered": False, "on_topic": False} for i in (1, 2, 3)]}
    for measure in ("recall", "f1"):
        result = topic_adherence(SCIENCE, judge=recorded(TOPICS, off), measure=measure)
        assert result.score is None
        assert f"{measure} is undefined" in result.reason
    one = topic_adherence(SCIENCE, judge=recorded(TOPICS, off), measure="recall", empty="perfect")
    assert one.score == 1.0
    seed = topic_adherence(SCIENCE, judge=recorded(TOPICS, off), mode="recall", zero_division=1.0)
    assert seed == one and seed.params["measure"] == "recall"


def test_missing_reference_topics_is_unscored_without_calling_the_judge(recorded):
    judge = recorded()
    result = topic_adherence(Sample(input="hi"), judge=judge)
    assert result.score is None
    assert "reference_topics" in result.reason
    assert judge.prompts == []


def test_comma_text_reference_topics(recorded):
    judge = recorded(TOPICS, ALL_ANSWERED)
    topic_adherence(SCIENCE, "science, cooking", judge=judge)
    assert '["science", "cooking"]' in judge.prompts[1][1]["content"]


def test_wrong_number_of_verdicts_is_reasked_then_unscored(recorded):
    short = {"verdicts": [{"subject": 1, "answered": True, "on_topic": True}]}
    judge = recorded(TOPICS, short, short)
    result = topic_adherence(SCIENCE, judge=judge)
    assert result.score is None
    assert result.reason.startswith("judge reply unparsable after one re-ask (step topic_verdicts")
    assert "expected 3 verdict(s)" in result.reason
    exchanges = result.diagnosis.details["exchanges"]
    assert [(e["step"], e["attempt"]) for e in exchanges] == [
        ("extract_topics", 1),
        ("topic_verdicts", 1),
        ("topic_verdicts", 2),
    ]
    # The re-ask quotes the problem back to the judge.
    assert "expected 3 verdict(s)" in judge.prompts[2][-1]["content"]


def test_options_are_checked():
    with pytest.raises(ConfigError):
        topic_adherence(SCIENCE, judge=object.__new__(_Any), measure="accuracy")
    with pytest.raises(ConfigError):
        topic_adherence(SCIENCE, judge=object.__new__(_Any), empty=0.5)
    with pytest.raises(ConfigError, match="zero_division"):
        topic_adherence(SCIENCE, judge=object.__new__(_Any), zero_division=0.5)
    with pytest.raises(JudgeError, match="needs an LLM judge"):
        topic_adherence(SCIENCE)


class _Any:
    def complete(self, *a, **k): ...

    async def acomplete(self, *a, **k): ...


async def test_async_twin_gives_the_same_result(recorded):
    sync = topic_adherence(SCIENCE, judge=recorded(TOPICS, ALL_ANSWERED))
    asynchronous = await atopic_adherence(SCIENCE, judge=recorded(TOPICS, ALL_ANSWERED))
    assert asynchronous.to_dict() == sync.to_dict()


def test_score_helpers():
    counts = count_topic_verdicts(ALL_ANSWERED["verdicts"])
    assert topic_adherence_score(counts, "precision") == 2 / 3
    empty = {"answered_on": 0, "answered_off": 0, "refused_on": 0, "refused_off": 2}
    assert topic_adherence_score(empty, "f1") is None


def test_the_async_twin_takes_the_seed_names_too(recorded):
    import asyncio

    refused = {"verdicts": [{"subject": i, "answered": False, "on_topic": True} for i in (1, 2, 3)]}
    got = asyncio.run(
        atopic_adherence(
            SCIENCE, judge=recorded(TOPICS, refused), mode="precision", zero_division=0.0
        )
    )
    want = topic_adherence(SCIENCE, judge=recorded(TOPICS, refused), empty="zero")
    assert got == want and got.score == 0.0
    assert got.params == {"measure": "precision", "empty": "zero"}
