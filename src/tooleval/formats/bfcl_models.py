"""BFCL's model list: function calling or prompting, and dots written as underscores.

Data copied from ``bfcl_eval/constants/model_config.py`` of ``bfcl-eval``
2026.3.23 (the registry keys with ``is_fc_model`` and
``underscore_to_dot``). BFCL writes a model's results under a folder named
after its registry key with ``/`` replaced by ``_``; :func:`model_settings`
looks a folder or key name up in this list.

>>> model_settings("gpt-4.1-2025-04-14-FC")
ModelSettings(name='gpt-4.1-2025-04-14-FC', mode='fc', underscore_names=True)
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
    mode: str  # "fc" (function calling) | "prompt"
    underscore_names: bool  # expected names are checked with "." written as "_"


#: registry key -> (is_fc_model, underscore_to_dot), in BFCL's order.
KNOWN_MODELS: dict[str, tuple[bool, bool]] = {
    "gorilla-openfunctions-v2": (True, False),
    "DeepSeek-V3.2-Exp": (False, False),
    "DeepSeek-V3.2-Exp-FC": (True, True),
    "DeepSeek-V3.2-Exp-thinking": (False, False),
    "gpt-5.2-2025-12-11-FC": (True, True),
    "gpt-5.2-2025-12-11": (False, False),
    "gpt-5-mini-2025-08-07-FC": (True, True),
    "gpt-5-mini-2025-08-07": (False, False),
    "gpt-5-nano-2025-08-07-FC": (True, True),
    "gpt-5-nano-2025-08-07": (False, False),
    "gpt-4.1-2025-04-14-FC": (True, True),
    "gpt-4.1-2025-04-14": (False, False),
    "gpt-4.1-mini-2025-04-14-FC": (True, True),
    "gpt-4.1-mini-2025-04-14": (False, False),
    "gpt-4.1-nano-2025-04-14-FC": (True, True),
    "gpt-4.1-nano-2025-04-14": (False, False),
    "gpt-4o-2024-11-20": (False, False),
    "gpt-4o-2024-11-20-FC": (True, True),
    "gpt-4o-mini-2024-07-18": (False, False),
    "gpt-4o-mini-2024-07-18-FC": (True, True),
    "o3-2025-04-16": (False, False),
    "o3-2025-04-16-FC": (True, True),
    "o4-mini-2025-04-16": (False, False),
    "o4-mini-2025-04-16-FC": (True, True),
    "claude-opus-4-5-20251101": (False, False),
    "claude-opus-4-5-20251101-FC": (True, True),
    "claude-sonnet-4-5-20250929": (False, False),
    "claude-sonnet-4-5-20250929-FC": (True, True),
    "claude-haiku-4-5-20251001": (False, False),
    "claude-haiku-4-5-20251001-FC": (True, True),
    "nova-pro-v1.0": (True, True),
    "nova-2-lite-v1.0": (True, True),
    "nova-micro-v1.0": (True, True),
    "open-mistral-nemo-2407": (False, False),
    "open-mistral-nemo-2407-FC": (True, True),
    "mistral-large-2411": (False, False),
    "mistral-large-2411-FC": (True, True),
    "mistral-small-2506": (False, False),
    "mistral-small-2506-FC": (True, True),
    "mistral-medium-2505": (False, False),
    "mistral-medium-2505-FC": (True, True),
    "firefunction-v2-FC": (True, False),
    "gemini-2.5-flash-lite-FC": (True, True),
    "gemini-2.5-flash-lite": (False, False),
    "gemini-2.5-flash-FC": (True, True),
    "gemini-2.5-flash": (False, False),
    "gemini-3-pro-preview-FC": (True, True),
    "gemini-3-pro-preview": (False, False),
    "gemini-3.1-flash-lite-preview-FC": (True, True),
    "gemini-3.1-flash-lite-preview": (False, False),
    "meetkai/functionary-small-v3.1-FC": (True, True),
    "meetkai/functionary-medium-v3.1-FC": (True, True),
    "command-r7b-12-2024-FC": (True, True),
    "command-a-03-2025-FC": (True, True),
    "command-a-reasoning-08-2025-FC": (True, True),
    "nvidia/llama-3.1-nemotron-ultra-253b-v1": (True, False),
    "nvidia/nemotron-4-340b-instruct": (False, False),
    "BitAgent/GoGoAgent": (False, False),
    "palmyra-x-004": (True, False),
    "grok-4-0709-FC": (True, True),
    "grok-4-0709": (False, False),
    "grok-4-1-fast-reasoning-FC": (True, True),
    "grok-4-1-fast-non-reasoning-FC": (True, True),
    "qwen3-0.6b-FC": (True, True),
    "qwen3-0.6b": (False, False),
    "qwen3-1.7b-FC": (True, True),
    "qwen3-1.7b": (False, False),
    "qwen3-4b-FC": (True, True),
    "qwen3-4b": (False, False),
    "qwen3-8b-FC": (True, True),
    "qwen3-8b": (False, False),
    "qwen3-14b-FC": (True, True),
    "qwen3-14b": (False, False),
    "qwen3-32b-FC": (True, True),
    "qwen3-32b": (False, False),
    "qwen3-30b-a3b-instruct-2507-FC": (True, True),
    "qwen3-30b-a3b-instruct-2507": (False, False),
    "qwen3-235b-a22b-instruct-2507-FC": (True, False),
    "qwen3-235b-a22b-instruct-2507": (False, False),
    "qwq-32b-FC": (True, True),
    "qwq-32b": (False, False),
    "xiaoming-14B": (True, False),
    "DM-Cito-8B-v3": (False, False),
    "DM-Cito-32B-v1": (False, False),
    "Ling/ling-lite-v1.5": (False, False),
    "glm-4.6-FC": (True, True),
    "glm-4.5-FC": (True, True),
    "glm-4.5-air-FC": (True, True),
    "kimi-k2-0905-preview-FC": (True, True),
    "kimi-k2-0905-preview": (False, False),
    "Nanbeige3.5-Pro-Thinking-FC": (True, True),
    "deepseek-ai/DeepSeek-R1": (False, False),
    "google/gemma-3-1b-it": (False, False),
    "google/gemma-3-4b-it": (False, False),
    "google/gemma-3-12b-it": (False, False),
    "google/gemma-3-27b-it": (False, False),
    "google/functiongemma-270m-it-FC": (True, False),
    "meta-llama/Llama-3.1-8B-Instruct-FC": (True, False),
    "meta-llama/Llama-3.1-8B-Instruct": (False, False),
    "meta-llama/Llama-3.1-70B-Instruct-FC": (True, False),
    "meta-llama/Llama-3.1-70B-Instruct": (False, False),
    "meta-llama/Llama-3.2-1B-Instruct-FC": (True, False),
    "meta-llama/Llama-3.2-3B-Instruct-FC": (True, False),
    "meta-llama/Llama-3.3-70B-Instruct-FC": (True, False),
    "meta-llama/Llama-4-Scout-17B-16E-Instruct-FC": (True, False),
    "meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8-FC": (True, False),
    "Salesforce/Llama-xLAM-2-70b-fc-r": (True, False),
    "Salesforce/Llama-xLAM-2-8b-fc-r": (True, False),
    "Salesforce/xLAM-2-32b-fc-r": (True, False),
    "Salesforce/xLAM-2-3b-fc-r": (True, False),
    "Salesforce/xLAM-2-1b-fc-r": (True, False),
    "mistralai/Ministral-8B-Instruct-2410": (False, False),
    "microsoft/phi-4": (False, False),
    "microsoft/Phi-4-mini-instruct": (False, False),
    "microsoft/Phi-4-mini-instruct-FC": (True, False),
    "ibm-granite/granite-3.2-8b-instruct": (True, False),
    "ibm-granite/granite-3.1-8b-instruct": (True, False),
    "ibm-granite/granite-4.0-350m": (True, False),
    "ibm-granite/granite-20b-functioncalling": (True, True),
    "MadeAgents/Hammer2.1-7b": (True, False),
    "MadeAgents/Hammer2.1-3b": (True, False),
    "MadeAgents/Hammer2.1-1.5b": (True, False),
    "MadeAgents/Hammer2.1-0.5b": (True, False),
    "THUDM/glm-4-9b-chat": (True, True),
    "Qwen/Qwen3-0.6B-FC": (True, False),
    "Qwen/Qwen3-0.6B": (False, False),
    "Qwen/Qwen3-1.7B-FC": (True, False),
    "Qwen/Qwen3-1.7B": (False, False),
    "Qwen/Qwen3-4B-Instruct-2507-FC": (True, False),
    "Qwen/Qwen3-4B-Instruct-2507": (False, False),
    "Qwen/Qwen3-8B-FC": (True, False),
    "Qwen/Qwen3-8B": (False, False),
    "Qwen/Qwen3-14B-FC": (True, False),
    "Qwen/Qwen3-14B": (False, False),
    "Qwen/Qwen3-32B-FC": (True, False),
    "Qwen/Qwen3-32B": (False, False),
    "Qwen/Qwen3-30B-A3B-Instruct-2507-FC": (True, False),
    "Qwen/Qwen3-30B-A3B-Instruct-2507": (False, False),
    "Qwen/Qwen3-235B-A22B-Instruct-2507-FC": (True, False),
    "Qwen/Qwen3-235B-A22B-Instruct-2507": (False, False),
    "X-Humanoid/Pelican1.0-VL-235B-A22B-FC": (True, False),
    "X-Humanoid/Pelican1.0-VL-30B-A3B-FC": (True, False),
    "Team-ACE/ToolACE-2-8B": (False, False),
    "openbmb/MiniCPM3-4B": (False, False),
    "openbmb/MiniCPM3-4B-FC": (True, True),
    "openbmb/MiniCPM-SALA-FC": (True, True),
    "watt-ai/watt-tool-8B": (False, False),
    "watt-ai/watt-tool-70B": (False, False),
    "ZJared/Haha-7B": (False, False),
    "speakleash/Bielik-11B-v2.3-Instruct": (False, False),
    "NovaSky-AI/Sky-T1-32B-Preview": (False, False),
    "tiiuae/Falcon3-10B-Instruct-FC": (True, False),
    "tiiuae/Falcon3-7B-Instruct-FC": (True, False),
    "tiiuae/Falcon3-3B-Instruct-FC": (True, False),
    "tiiuae/Falcon3-1B-Instruct-FC": (True, False),
    "uiuc-convai/CoALM-8B": (False, False),
    "uiuc-convai/CoALM-70B": (False, False),
    "uiuc-convai/CoALM-405B": (False, False),
    "katanemo/Arch-Agent-1.5B": (True, False),
    "katanemo/Arch-Agent-3B": (True, False),
    "katanemo/Arch-Agent-7B": (True, False),
    "katanemo/Arch-Agent-32B": (True, False),
    "BitAgent/BitAgent-8B": (False, False),
    "BitAgent/BitAgent-Bounty-8B": (True, False),
    "ThinkAgents/ThinkAgent-1B": (True, False),
    "phronetic-ai/RZN-T": (False, False),
    "Nanbeige/Nanbeige4-3B-Thinking-2511": (True, False),
    "meta-llama/llama-4-maverick-17b-128e-instruct-fp8-novita": (False, False),
    "meta-llama/llama-4-maverick-17b-128e-instruct-fp8-FC-novita": (True, True),
    "meta-llama/llama-4-scout-17b-16e-instruct-novita": (False, False),
    "meta-llama/llama-4-scout-17b-16e-instruct-FC-novita": (True, True),
    "qwen/qwq-32b-FC-novita": (True, True),
    "qwen/qwq-32b-novita": (False, False),
    "qwen3-4b-think-FC": (True, True),
    "qwen3-4b-nothink-FC": (True, True),
}

_BY_FOLDER = {key.replace("/", "_"): key for key in KNOWN_MODELS}


def model_settings(name: str) -> ModelSettings | None:
    """Settings for a registry key or result-folder name, or None if BFCL does not list it."""
    key = name if name in KNOWN_MODELS else _BY_FOLDER.get(name)
    if key is None:
        return None
    is_fc, underscore = KNOWN_MODELS[key]
    return ModelSettings(key, "fc" if is_fc else "prompt", underscore)
