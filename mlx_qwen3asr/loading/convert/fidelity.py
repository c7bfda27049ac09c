"""Fidelity of a converted model: does it still produce the reference model's tokens?

    sample_signal() (or any 16 kHz wave) -> reference model: greedy tokens t[0..n), then one
    teacher-forced pass over prompt + t for the logits that chose each of them      [n, vocab]
    -> converted model: one pass over the same prompt + t -> its logits [n, vocab] and picks
    -> first index where the picks differ, the cosine of the logits at the prompt's
       last position, the smallest cosine along the reference path, and the reference's top-1 minus
       top-2 logit at the divergence (a small margin means a near-tie: any rounding can flip it)

The models run one after the other (`check_fidelity` loads, runs and frees each in turn), so the
check needs the memory of one model at a time. Comparison stops after the reference's end-of-text.
"""

import gc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Union

import mlx.core as mx
import numpy as np

from ...audio.io import SAMPLE_RATE
from ...decode.generate import generate_steps
from ...families.recogniser import Recogniser, encode_audio
from ..load import load

# progress(model, tokens done, tokens in all): "source" as its greedy tokens come, "converted" once
# its single pass over them is done. The source's greedy decode takes most of the check's time.
FidelityProgress = Callable[[str, int, int], None]


def sample_signal(seconds: float = 3.0) -> np.ndarray:
    """A deterministic voice-like 16 kHz wave: a gliding 110-180 Hz harmonic tone, 4 syllables/s."""
    t = np.arange(int(seconds * SAMPLE_RATE)) / SAMPLE_RATE
    f0 = 110 + 70 * (0.5 + 0.5 * np.sin(2 * np.pi * 0.4 * t))
    phase = 2 * np.pi * np.cumsum(f0) / SAMPLE_RATE
    # harmonics with a falling spectrum and two formant-like bumps near 700 Hz and 1200 Hz
    formants = lambda f: 1 + 2 * np.exp(-(((f - 700) / 200) ** 2)) + np.exp(-(((f - 1200) / 250) ** 2))  # noqa: E731
    wave = sum(np.sin(k * phase) / k * formants(145 * k) for k in range(1, 25))
    envelope = np.clip(np.sin(2 * np.pi * 4 * t), 0, None) ** 0.5  # syllables with pauses between them
    noise = np.random.default_rng(0).standard_normal(t.size) * 0.01
    wave = wave * envelope + noise
    return (0.3 * wave / np.max(np.abs(wave))).astype(np.float32)


@dataclass
class Trace:
    tokens: list[int]  # greedy tokens (given the teacher's prefix when there is a teacher)
    logits: np.ndarray  # [n, vocab] float32: the logits that chose each token


@dataclass
class Fidelity:
    reference_tokens: list[int]
    converted_tokens: list[int]  # its greedy pick after each reference prefix: its own output up to a divergence
    first_divergence: Optional[int]  # index of the first differing token; None when all agree
    logits_cosine: float  # last prompt position
    min_step_cosine: float  # smallest cosine along the reference path
    margin_at_divergence: Optional[float]  # reference top-1 minus top-2 logit there
    reference_margins: np.ndarray  # [n] the reference's top-1 minus top-2 logit at every step

    @property
    def agreeing_tokens(self) -> int:
        return len(self.reference_tokens) if self.first_divergence is None else self.first_divergence


def trace(
    model: Recogniser,
    wave: np.ndarray,
    n_tokens: int,
    teacher: Optional[list[int]] = None,
    on_token: Callable[[int], None] = lambda done: None,
) -> Trace:
    """Greedy decoding of `model` on `wave`, or one teacher-forced pass along `teacher`'s tokens.

    Up to the first token where a model departs from the teacher, its greedy output and its picks
    along the teacher's prefix are the same thing, so a compared model needs one forward pass only.
    `on_token(n)` is called as each greedy token is made.
    """
    frames = getattr(model, "frame_log_probs", None)
    if frames is not None:  # a CTC model: every frame's pick and log-probabilities from one pass, no teacher
        logits = np.array(frames(wave))
        on_token(len(logits))
        return Trace(logits.argmax(-1).tolist(), logits)
    features = encode_audio(model, wave)
    prompt = model.prompt_ids(features.shape[0])
    if teacher is None:
        embeddings = model.embed(mx.array(prompt), features)
        greedy = []
        for token in generate_steps(model, embeddings, model.make_cache(), n_tokens):
            greedy.append(token)
            on_token(len(greedy))
    path = teacher if teacher is not None else greedy
    hidden = model.model(model.embed(mx.array(prompt + path[:-1]), features))
    logits = np.array(model.logits(hidden[0, len(prompt) - 1 :]).astype(mx.float32))  # LM head on n rows only
    return Trace(greedy if teacher is None else logits.argmax(-1).tolist(), logits)


def compare(reference: Trace, converted: Trace, eos_token_ids: tuple[int, ...] = ()) -> Fidelity:
    """Agreement of two traces taken along the same (reference) tokens."""
    n = len(reference.tokens)
    ends = [i for i, t in enumerate(reference.tokens) if t in eos_token_ids]
    n = ends[0] + 1 if ends else n
    ref, conv = reference.tokens[:n], converted.tokens[:n]
    diverged = [i for i, (a, b) in enumerate(zip(ref, conv)) if a != b]
    if len(conv) < len(ref):  # a one-pass model counts its own tokens (Paraformer's CIF): fewer is a divergence
        diverged.append(len(conv))
    first = diverged[0] if diverged else None
    top2 = np.sort(reference.logits[:n], axis=-1)[:, -2:]
    margins = top2[:, 1] - top2[:, 0]
    shared = min(n, len(converted.logits))
    cosines = _cosines(reference.logits[:shared], converted.logits[:shared])
    return Fidelity(
        ref,
        conv,
        first,
        float(cosines[0]),
        float(cosines.min()),
        None if first is None else float(margins[first]),
        margins,
    )


def check_fidelity(
    source: Union[str, Path],
    converted: Union[str, Path],
    n_tokens: int = 24,
    wave: Optional[np.ndarray] = None,
    reference_dtype: str = "float32",
    progress: Optional[FidelityProgress] = None,
) -> Fidelity:
    """Run the source model (reference_dtype) and then the converted one (its default dtype)."""
    report = progress or (lambda model, done, total: None)
    wave = sample_signal() if wave is None else wave
    model = load(source, dtype=reference_dtype)
    reference = trace(model, wave, n_tokens, on_token=lambda done: report("source", done, n_tokens))
    eos = getattr(getattr(model, "tokenizer", None), "eos_token_ids", ())  # a CTC model has none: every frame
    del model
    gc.collect()
    mx.clear_cache()
    model = load(converted)
    result = compare(reference, trace(model, wave, n_tokens, teacher=reference.tokens), eos)
    report("converted", len(reference.tokens), len(reference.tokens))
    del model
    mx.clear_cache()
    return result


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a, b = a.astype(np.float64), b.astype(np.float64)
    return (a * b).sum(-1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1))
