"""BFCL's model list: function calling or prompting, and dots written as underscores.

Data copied from ``bfcl_eval/constants/model_config.py`` of ``bfcl-eval``
2026.3.23 (the registry keys with ``is_fc_model`` and
``underscore_to_dot``), and which decoder each model's handler uses (read
from ``bfcl_eval/model_handler``). BFCL writes a model's results under a folder named
after its registry key with ``/`` replaced by ``_``; :func:`model_settings`
looks a folder or key name up in this list.

>>> model_settings("gpt-4.1-2025-04-14-FC")
ModelSettings(name='gpt-4.1-2025-04-14-FC', mode='fc', underscore_names=True, decoder='openai')
>>> model_settings("my-own-model") is None
True
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["KNOWN_MODELS", "SOURCE_VERSION", "ModelSettings", "model_settings"]

#: Where :data:`KNOWN_MODELS` comes from.
SOURCE_VERSION = "bfcl-eval 2026.3.23"


@dataclass(frozen=True, slots=True)
class ModelSettings:
    """How BFCL decodes and checks one model's results."""

    name: str
    mode: str  # "fc" (function calling) | "prompt": BFCL's is_fc_model
    underscore_names: bool  # expected names are checked with "." written as "_"
    decoder: str = "prompt"  # the handler's decoder (bfcl_decode_handlers.DECODERS)


#: registry key -> (is_fc_model, underscore_to_dot, decoder), in BFCL's order. The
#: decoder names what the model's handler does in ``decode_ast`` (see
#: :mod:`tooleval.benchmarks.bfcl.decode_handlers`; handlers that parse their own
#: chat template: :mod:`tooleval.benchmarks.bfcl.decode_templates`).
KNOWN_MODELS: dict[str, tuple[bool, bool, str]] = {
    "gorilla-openfunctions-v2": (True, False, "gorilla"),
    "DeepSeek-V3.2-Exp": (False, False, "prompt"),
    "DeepSeek-V3.2-Exp-FC": (True, True, "openai"),
    "DeepSeek-V3.2-Exp-thinking": (False, False, "prompt"),
    "gpt-5.2-2025-12-11-FC": (True, True, "openai"),
    "gpt-5.2-2025-12-11": (False, False, "prompt"),
    "gpt-5-mini-2025-08-07-FC": (True, True, "openai"),
    "gpt-5-mini-2025-08-07": (False, False, "prompt"),
    "gpt-5-nano-2025-08-07-FC": (True, True, "openai"),
    "gpt-5-nano-2025-08-07": (False, False, "prompt"),
    "gpt-4.1-2025-04-14-FC": (True, True, "openai"),
    "gpt-4.1-2025-04-14": (False, False, "prompt"),
    "gpt-4.1-mini-2025-04-14-FC": (True, True, "openai"),
    "gpt-4.1-mini-2025-04-14": (False, False, "prompt"),
    "gpt-4.1-nano-2025-04-14-FC": (True, True, "openai"),
    "gpt-4.1-nano-2025-04-14": (False, False, "prompt"),
    "gpt-4o-2024-11-20": (False, False, "prompt"),
    "gpt-4o-2024-11-20-FC": (True, True, "openai"),
    "gpt-4o-mini-2024-07-18": (False, False, "prompt"),
    "gpt-4o-mini-2024-07-18-FC": (True, True, "openai"),
    "o3-2025-04-16": (False, False, "prompt"),
    "o3-2025-04-16-FC": (True, True, "openai"),
    "o4-mini-2025-04-16": (False, False, "prompt"),
    "o4-mini-2025-04-16-FC": (True, True, "openai"),
    "claude-opus-4-5-20251101": (False, False, "prompt"),
    "claude-opus-4-5-20251101-FC": (True, True, "openai"),
    "claude-sonnet-4-5-20250929": (False, False, "prompt"),
    "claude-sonnet-4-5-20250929-FC": (True, True, "openai"),
    "claude-haiku-4-5-20251001": (False, False, "prompt"),
    "claude-haiku-4-5-20251001-FC": (True, True, "openai"),
    "nova-pro-v1.0": (True, True, "list"),
    "nova-2-lite-v1.0": (True, True, "list"),
    "nova-micro-v1.0": (True, True, "list"),
    "open-mistral-nemo-2407": (False, False, "prompt"),
    "open-mistral-nemo-2407-FC": (True, True, "openai"),
    "mistral-large-2411": (False, False, "prompt"),
    "mistral-large-2411-FC": (True, True, "openai"),
    "mistral-small-2506": (False, False, "prompt"),
    "mistral-small-2506-FC": (True, True, "openai"),
    "mistral-medium-2505": (False, False, "prompt"),
    "mistral-medium-2505-FC": (True, True, "openai"),
    "firefunction-v2-FC": (True, False, "openai"),
    "gemini-2.5-flash-lite-FC": (True, True, "gemini_fc"),
    "gemini-2.5-flash-lite": (False, False, "gemini_prompt"),
    "gemini-2.5-flash-FC": (True, True, "gemini_fc"),
    "gemini-2.5-flash": (False, False, "gemini_prompt"),
    "gemini-3-pro-preview-FC": (True, True, "gemini_fc"),
    "gemini-3-pro-preview": (False, False, "gemini_prompt"),
    "gemini-3.1-flash-lite-preview-FC": (True, True, "gemini_fc"),
    "gemini-3.1-flash-lite-preview": (False, False, "gemini_prompt"),
    "meetkai/functionary-small-v3.1-FC": (True, True, "openai"),
    "meetkai/functionary-medium-v3.1-FC": (True, True, "openai"),
    "command-r7b-12-2024-FC": (True, True, "cohere"),
    "command-a-03-2025-FC": (True, True, "cohere"),
    "command-a-reasoning-08-2025-FC": (True, True, "cohere"),
    "nvidia/llama-3.1-nemotron-ultra-253b-v1": (True, False, "nemotron"),
    "nvidia/nemotron-4-340b-instruct": (False, False, "prompt"),
    "BitAgent/GoGoAgent": (False, False, "prompt"),
    "palmyra-x-004": (True, False, "openai"),
    "grok-4-0709-FC": (True, True, "openai"),
    "grok-4-0709": (False, False, "prompt"),
    "grok-4-1-fast-reasoning-FC": (True, True, "openai"),
    "grok-4-1-fast-non-reasoning-FC": (True, True, "openai"),
    "qwen3-0.6b-FC": (True, True, "openai"),
    "qwen3-0.6b": (False, False, "prompt"),
    "qwen3-1.7b-FC": (True, True, "openai"),
    "qwen3-1.7b": (False, False, "prompt"),
    "qwen3-4b-FC": (True, True, "openai"),
    "qwen3-4b": (False, False, "prompt"),
    "qwen3-8b-FC": (True, True, "openai"),
    "qwen3-8b": (False, False, "prompt"),
    "qwen3-14b-FC": (True, True, "openai"),
    "qwen3-14b": (False, False, "prompt"),
    "qwen3-32b-FC": (True, True, "openai"),
    "qwen3-32b": (False, False, "prompt"),
    "qwen3-30b-a3b-instruct-2507-FC": (True, True, "openai"),
    "qwen3-30b-a3b-instruct-2507": (False, False, "prompt"),
    "qwen3-235b-a22b-instruct-2507-FC": (True, False, "openai"),
    "qwen3-235b-a22b-instruct-2507": (False, False, "prompt"),
    "qwq-32b-FC": (True, True, "openai"),
    "qwq-32b": (False, False, "prompt"),
    "xiaoming-14B": (True, False, "name_arguments"),
    "DM-Cito-8B-v3": (False, False, "name_arguments"),
    "DM-Cito-32B-v1": (False, False, "name_arguments"),
    "Ling/ling-lite-v1.5": (False, False, "prompt"),
    "glm-4.6-FC": (True, True, "openai"),
    "glm-4.5-FC": (True, True, "openai"),
    "glm-4.5-air-FC": (True, True, "openai"),
    "kimi-k2-0905-preview-FC": (True, True, "openai"),
    "kimi-k2-0905-preview": (False, False, "prompt"),
    "Nanbeige3.5-Pro-Thinking-FC": (True, True, "openai"),
    "deepseek-ai/DeepSeek-R1": (False, False, "prompt"),
    "google/gemma-3-1b-it": (False, False, "prompt"),
    "google/gemma-3-4b-it": (False, False, "prompt"),
    "google/gemma-3-12b-it": (False, False, "prompt"),
    "google/gemma-3-27b-it": (False, False, "prompt"),
    "google/functiongemma-270m-it-FC": (True, False, "functiongemma"),
    "meta-llama/Llama-3.1-8B-Instruct-FC": (True, False, "llama_3_1"),
    "meta-llama/Llama-3.1-8B-Instruct": (False, False, "prompt"),
    "meta-llama/Llama-3.1-70B-Instruct-FC": (True, False, "llama_3_1"),
    "meta-llama/Llama-3.1-70B-Instruct": (False, False, "prompt"),
    "meta-llama/Llama-3.2-1B-Instruct-FC": (True, False, "prompt"),
    "meta-llama/Llama-3.2-3B-Instruct-FC": (True, False, "prompt"),
    "meta-llama/Llama-3.3-70B-Instruct-FC": (True, False, "prompt"),
    "meta-llama/Llama-4-Scout-17B-16E-Instruct-FC": (True, False, "prompt"),
    "meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8-FC": (True, False, "prompt"),
    "Salesforce/Llama-xLAM-2-70b-fc-r": (True, False, "xlam"),
    "Salesforce/Llama-xLAM-2-8b-fc-r": (True, False, "xlam"),
    "Salesforce/xLAM-2-32b-fc-r": (True, False, "xlam"),
    "Salesforce/xLAM-2-3b-fc-r": (True, False, "xlam"),
    "Salesforce/xLAM-2-1b-fc-r": (True, False, "xlam"),
    "mistralai/Ministral-8B-Instruct-2410": (False, False, "list"),
    "microsoft/phi-4": (False, False, "phi_prompt"),
    "microsoft/Phi-4-mini-instruct": (False, False, "phi_prompt"),
    "microsoft/Phi-4-mini-instruct-FC": (True, False, "list_of_dicts"),
    "ibm-granite/granite-3.2-8b-instruct": (True, False, "list_of_dicts"),
    "ibm-granite/granite-3.1-8b-instruct": (True, False, "list_of_dicts"),
    "ibm-granite/granite-4.0-350m": (True, False, "tool_call_tags"),
    "ibm-granite/granite-20b-functioncalling": (True, True, "granite_fc"),
    "MadeAgents/Hammer2.1-7b": (True, False, "hammer"),
    "MadeAgents/Hammer2.1-3b": (True, False, "hammer"),
    "MadeAgents/Hammer2.1-1.5b": (True, False, "hammer"),
    "MadeAgents/Hammer2.1-0.5b": (True, False, "hammer"),
    "THUDM/glm-4-9b-chat": (True, True, "glm"),
    "Qwen/Qwen3-0.6B-FC": (True, False, "tool_call_tags"),
    "Qwen/Qwen3-0.6B": (False, False, "prompt"),
    "Qwen/Qwen3-1.7B-FC": (True, False, "tool_call_tags"),
    "Qwen/Qwen3-1.7B": (False, False, "prompt"),
    "Qwen/Qwen3-4B-Instruct-2507-FC": (True, False, "tool_call_tags"),
    "Qwen/Qwen3-4B-Instruct-2507": (False, False, "prompt"),
    "Qwen/Qwen3-8B-FC": (True, False, "tool_call_tags"),
    "Qwen/Qwen3-8B": (False, False, "prompt"),
    "Qwen/Qwen3-14B-FC": (True, False, "tool_call_tags"),
    "Qwen/Qwen3-14B": (False, False, "prompt"),
    "Qwen/Qwen3-32B-FC": (True, False, "tool_call_tags"),
    "Qwen/Qwen3-32B": (False, False, "prompt"),
    "Qwen/Qwen3-30B-A3B-Instruct-2507-FC": (True, False, "tool_call_tags"),
    "Qwen/Qwen3-30B-A3B-Instruct-2507": (False, False, "prompt"),
    "Qwen/Qwen3-235B-A22B-Instruct-2507-FC": (True, False, "tool_call_tags"),
    "Qwen/Qwen3-235B-A22B-Instruct-2507": (False, False, "prompt"),
    "X-Humanoid/Pelican1.0-VL-235B-A22B-FC": (True, False, "tool_call_tags"),
    "X-Humanoid/Pelican1.0-VL-30B-A3B-FC": (True, False, "tool_call_tags"),
    "Team-ACE/ToolACE-2-8B": (False, False, "prompt"),
    "openbmb/MiniCPM3-4B": (False, False, "prompt"),
    "openbmb/MiniCPM3-4B-FC": (True, True, "minicpm_fc"),
    "openbmb/MiniCPM-SALA-FC": (True, True, "openai"),
    "watt-ai/watt-tool-8B": (False, False, "prompt"),
    "watt-ai/watt-tool-70B": (False, False, "prompt"),
    "ZJared/Haha-7B": (False, False, "prompt"),
    "speakleash/Bielik-11B-v2.3-Instruct": (False, False, "prompt"),
    "NovaSky-AI/Sky-T1-32B-Preview": (False, False, "prompt"),
    "tiiuae/Falcon3-10B-Instruct-FC": (True, False, "falcon_fc"),
    "tiiuae/Falcon3-7B-Instruct-FC": (True, False, "falcon_fc"),
    "tiiuae/Falcon3-3B-Instruct-FC": (True, False, "falcon_fc"),
    "tiiuae/Falcon3-1B-Instruct-FC": (True, False, "falcon_fc"),
    "uiuc-convai/CoALM-8B": (False, False, "prompt"),
    "uiuc-convai/CoALM-70B": (False, False, "prompt"),
    "uiuc-convai/CoALM-405B": (False, False, "prompt"),
    "katanemo/Arch-Agent-1.5B": (True, False, "list_of_dicts"),
    "katanemo/Arch-Agent-3B": (True, False, "list_of_dicts"),
    "katanemo/Arch-Agent-7B": (True, False, "list_of_dicts"),
    "katanemo/Arch-Agent-32B": (True, False, "list_of_dicts"),
    "BitAgent/BitAgent-8B": (False, False, "prompt"),
    "BitAgent/BitAgent-Bounty-8B": (True, False, "json_calls"),
    "ThinkAgents/ThinkAgent-1B": (True, False, "think_agent"),
    "phronetic-ai/RZN-T": (False, False, "prompt"),
    "Nanbeige/Nanbeige4-3B-Thinking-2511": (True, False, "tool_call_tags"),
    "meta-llama/llama-4-maverick-17b-128e-instruct-fp8-novita": (False, False, "prompt"),
    "meta-llama/llama-4-maverick-17b-128e-instruct-fp8-FC-novita": (True, True, "openai"),
    "meta-llama/llama-4-scout-17b-16e-instruct-novita": (False, False, "prompt"),
    "meta-llama/llama-4-scout-17b-16e-instruct-FC-novita": (True, True, "openai"),
    "qwen/qwq-32b-FC-novita": (True, True, "openai"),
    "qwen/qwq-32b-novita": (False, False, "prompt"),
    "qwen3-4b-think-FC": (True, True, "openai"),
    "qwen3-4b-nothink-FC": (True, True, "openai"),
}

_BY_FOLDER = {key.replace("/", "_"): key for key in KNOWN_MODELS}


def model_settings(name: str) -> ModelSettings | None:
    """Settings for a registry key or result-folder name, or None if BFCL does not list it."""
    key = name if name in KNOWN_MODELS else _BY_FOLDER.get(name)
    if key is None:
        return None
    is_fc, underscore, decoder = KNOWN_MODELS[key]
    return ModelSettings(key, "fc" if is_fc else "prompt", underscore, decoder)
