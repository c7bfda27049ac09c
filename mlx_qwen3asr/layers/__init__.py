"""The Qwen3 decoder both recognisers hold (a component, families/speech_lm.py): its layers, KV cache,
attention, RoPE, the compiled decode step and the CPU two-stream tactic."""

from .cache import KVCache
from .config import TextArgs

__all__ = ["KVCache", "TextArgs"]
