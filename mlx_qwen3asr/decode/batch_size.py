"""How many chunks a wave decodes together: default_batch_size(model) and the checked sizes.

rows = BATCH_MEMORY_SHARE x memory (the GPU's working set, else RAM) / one row's KV cache bytes
     (layers x 2 x kv heads x head dim x dtype size x (audio tokens + prompt + output budget)),
at most MAX_BATCH_SIZE, at least 1
"""

from math import inf
from typing import Optional

import mlx.core as mx

from ..families.recogniser import Recogniser
from ..options import DecodeOptions
from ..runtime.memory import memory_size

# Decoding is bound by reading the weights: a step for 16 rows costs ~1.5x a step for one on the
# CPU, and less on a GPU. More rows gain little and cost KV cache memory.
MAX_BATCH_SIZE = 16
BATCH_MEMORY_SHARE = 0.25  # the KV caches of a full batch may take at most this share of memory


def checked_sizes(model: Recogniser, chunk_seconds: Optional[float], batch_size: Optional[int]) -> tuple[float, int]:
    """chunk_seconds (default the model's) and batch_size (default default_batch_size), checked."""
    chunk_seconds = model.chunk_seconds if chunk_seconds is None else chunk_seconds
    if isinstance(chunk_seconds, bool) or not isinstance(chunk_seconds, (int, float)) or not 1 <= chunk_seconds < inf:
        raise ValueError(f"chunk_seconds must be a number of seconds, 1 or more, got {chunk_seconds!r}")
    batch_size = default_batch_size(model, chunk_seconds) if batch_size is None else batch_size
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
    return chunk_seconds, batch_size


def default_batch_size(model: Recogniser, chunk_seconds: Optional[float] = None) -> int:
    """MAX_BATCH_SIZE rows, fewer when their KV caches would take over BATCH_MEMORY_SHARE of memory
    (the GPU's working set, else the machine's RAM). Chunks of `chunk_seconds` (default the model's)."""
    chunk_seconds = model.chunk_seconds if chunk_seconds is None else chunk_seconds
    text = model.args.text
    bytes_per_token = text.num_hidden_layers * 2 * text.num_key_value_heads * text.head_dim * model.dtype.size
    audio_tokens = model.audio_tokens_per_second * chunk_seconds
    tokens = audio_tokens + 60 + DecodeOptions().budget(chunk_seconds)  # audio + prompt + output
    rows = int(BATCH_MEMORY_SHARE * memory_bytes() / (bytes_per_token * tokens))
    return max(1, min(MAX_BATCH_SIZE, rows))


def memory_bytes() -> int:
    """Memory the arrays can use: the GPU's recommended working set, else physical RAM (or less under a
    cgroup or address-space limit)."""
    info = mx.device_info() if mx.default_device() != mx.cpu else {}
    for key in ("max_recommended_working_set_size", "memory_size", "total_memory"):
        if key in info:
            return int(info[key])
    return memory_size()
