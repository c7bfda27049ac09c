"""Warm-up at start: the shapes a server or the dictation app will use, run once before the first request.

    a 1 s clip and a full chunk (model.chunk_seconds, at most 30 s) of noise, transcribed together
    (a batch of two rows, WARM_UP_TOKENS tokens each)
      -> the encoder on a partial window and on full ones, a short and a full-length prefill,
         the one-row decode step and the batched one, the LM head on one row and on two

Why: MLX builds a kernel the first time it meets a new shape class (CUDA compiles its JIT kernels then,
the CPU its compiled functions). On an H200 the first batched 4-bit prefill in a fresh process took 34 s
and later ones 0.2 s: without a warm-up the first user pays that, in the middle of a live session.
"""

from typing import Optional

import numpy as np

from ..audio.samples import SAMPLE_RATE
from ..families.recogniser import Recogniser
from ..options import DecodeOptions
from ..result import Transcription
from .prefix_cache import PrefixCache
from .transcribe import transcribe_checked

WARM_UP_TOKENS = 4
# the longest clip warmed up (Fun-ASR-Nano's chunks are 122.88 s: 30 s covers its shapes' classes)
LONGEST_SECONDS = 30.0


def warm_up(model: Recogniser, prefix_cache: Optional[PrefixCache] = None) -> list[Transcription]:
    """Transcribe a short and a full-length noise clip together (see the module docstring); returns their
    transcriptions (noise, so their text means nothing)."""
    noise = np.random.default_rng(0).normal(0.0, 0.1, int(min(model.chunk_seconds, LONGEST_SECONDS) * SAMPLE_RATE))
    clips = [noise[:SAMPLE_RATE].astype(np.float32), noise.astype(np.float32)]
    options = [DecodeOptions(max_new_tokens=WARM_UP_TOKENS)] * len(clips)
    return transcribe_checked(clips, model, options, batch_size=len(clips), prefix_cache=prefix_cache)
