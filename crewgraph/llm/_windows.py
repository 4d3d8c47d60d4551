"""Context window sizes of well-known models, for ``LLM.get_context_window_size()``.

Matched by prefix of the model name as sent (the provider prefix removed),
longest first. Unknown models get a conservative 8192 tokens; servers that
run a model with a smaller window (a local llama.cpp started with ``-c
4096``) should be described with ``LLM(context_window_size=...)``.
"""

from __future__ import annotations

__all__ = ["DEFAULT_WINDOW", "context_window_for", "is_multimodal"]

DEFAULT_WINDOW = 8192

_WINDOWS: dict[str, int] = {
    "gpt-4.1": 1_047_576,
    "gpt-4o": 128_000,
    "gpt-4-turbo": 128_000,
    "gpt-4": 8192,
    "gpt-3.5-turbo": 16_385,
    "gpt-5": 400_000,
    "o1": 200_000,
    "o3": 200_000,
    "o4": 200_000,
    "claude": 200_000,
    "gemini-1.5-pro": 2_097_152,
    "gemini": 1_048_576,
    "deepseek": 128_000,
    "mistral-large": 128_000,
    "mistral-small": 32_000,
    "llama-3": 131_072,
    "llama3": 131_072,
    "qwen2.5": 32_768,
    "qwen3": 32_768,
}
_ORDER = sorted(_WINDOWS, key=len, reverse=True)


def context_window_for(model: str) -> int:
    """The known window of ``model`` (by name prefix, case-insensitive), else :data:`DEFAULT_WINDOW`."""
    name = model.lower().rsplit("/", 1)[-1]
    for prefix in _ORDER:
        if name.startswith(prefix):
            return _WINDOWS[prefix]
    return DEFAULT_WINDOW


_VISION = ("gpt-4o", "gpt-4.1", "gpt-4-turbo", "gpt-4-vision", "gpt-5", "o1", "o3", "o4", "claude-3",
           "claude-sonnet-4", "claude-opus-4", "claude-haiku-4", "gemini", "llava", "llama3.2-vision",
           "llama-3.2-vision", "qwen2.5-vl", "qwen-vl", "pixtral", "gemma3", "minicpm-v")
"""Model families that read images (CrewAI's ``supports_multimodal`` answers True for these)."""


def is_multimodal(model: str) -> bool:
    """Whether ``model`` (by name prefix, case-insensitive) is known to read images."""
    name = model.lower().rsplit("/", 1)[-1]
    return name.startswith(_VISION)
