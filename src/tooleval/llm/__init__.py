"""LLM judges: one protocol, an OpenAI-compatible client, a local CPU model, a cache.

No judge is ever created for you: judged metrics take ``judge=`` explicitly.

>>> from tooleval.llm import OpenAIJudge, judge_from_config
>>> judge = judge_from_config({"type": "openai", "model": "llama3.1:8b",
...                            "base_url": "http://127.0.0.1:11434/v1", "cache": False})
>>> isinstance(judge, Judge)
True

Heavy dependencies (``openai``; ``numpy``, ``gguf`` and ``tokenizers`` for the
local judge; ``fastapi``) are imported only when a judge first calls its model.
The bundled local SmolLM2-135M judge is for plumbing only: it parrots prompt
examples.
"""

from tooleval.llm.base import BaseJudge, Judge, JudgeUsage, normalise_messages
from tooleval.llm.cache import DEFAULT_CACHE_PATH, JudgeCache, cache_key
from tooleval.llm.config import judge_from_config
from tooleval.llm.local import LocalJudge, find_smollm2_gguf
from tooleval.llm.openai_judge import OpenAIJudge
from tooleval.llm.reply import JudgeReply, check_schema, extract_json_object, parse_json_reply

__all__ = [
    "DEFAULT_CACHE_PATH",
    "BaseJudge",
    "Judge",
    "JudgeCache",
    "JudgeReply",
    "JudgeUsage",
    "LocalJudge",
    "OpenAIJudge",
    "cache_key",
    "check_schema",
    "extract_json_object",
    "find_smollm2_gguf",
    "judge_from_config",
    "normalise_messages",
    "parse_json_reply",
]
