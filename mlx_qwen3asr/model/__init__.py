"""The network: audio encoder, Qwen3 decoder with its KV cache, and the model that joins them."""

from .cache import KVCache
from .config import AudioArgs, ModelArgs, TextArgs
from .model import Qwen3ASR, encode_audio, encode_audios

__all__ = ["AudioArgs", "KVCache", "ModelArgs", "Qwen3ASR", "TextArgs", "encode_audio", "encode_audios"]
