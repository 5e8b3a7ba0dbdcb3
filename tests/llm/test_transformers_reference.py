"""The numpy runtime reproduces, token for token, what transformers + torch generated
from the same SmolLM2 GGUF before the runtime was replaced (recorded in
``data/smollm2_transformers_reference.json``: prompts, prompt ids, greedy ids, text)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tooleval.llm.local import load_local_model

pytestmark = pytest.mark.llm
STEPS = 12

CASES = json.loads(
    (Path(__file__).parent / "data" / "smollm2_transformers_reference.json").read_text()
)


@pytest.mark.parametrize(
    "case", CASES["cases"], ids=lambda c: f"{c['prompt_ids'][-3]}-{len(c['gen_ids'])}"
)
def test_same_prompt_ids_and_greedy_tokens_as_transformers(case):
    loaded = load_local_model()
    tokenizer = loaded.tokenizer
    prompt = tokenizer.chat_ids(case["messages"])
    if case["prefill"]:
        prompt += tokenizer.encode(case["prefill"])
    assert prompt == case["prompt_ids"]
    # Greedy decoding is a prefix property: the first STEPS tokens of the recorded 40
    # (kept short: the CPU is shared, and a wrong forward pass shows in the first token).
    generated = loaded.model.generate(prompt, max_new_tokens=STEPS, stop_ids=tokenizer.stop_ids)
    assert generated == case["gen_ids"][:STEPS]
    if len(case["gen_ids"]) <= STEPS:
        assert case["prefill"] + tokenizer.decode(generated) == case["text"]
