"""Offline transcription: any audio -> text, long audio split at its quietest points.

    audio (path | array | (array, rate)) -> 16 kHz mono float32
    -> chunks of at most 30 s, each cut at the quietest 100 ms within the last 5 s before the limit
    -> per chunk: log-mel -> encoder -> prompt (+ context, + forced language) -> greedy decode
       -> "language X<asr_text>text" parsed into (language, text)
    -> texts joined (a space between chunks, none for Chinese/Japanese/Cantonese/Thai)
    -> with aligner=: each segment's words timed (align/aligner.py)
"""

from typing import Optional

import mlx.core as mx
import numpy as np

from .audio.io import SAMPLE_RATE, AudioInput, prepare_audio
from .align.aligner import align_segments, check_aligner
from .align.model import ForcedAligner
from .audio.split import split_audio
from .generate import generate
from .model.model import Qwen3ASR, encode_audio
from .result import Segment, Transcription
from .options import DecodeOptions
from .tokenizer import build_prompt, is_space_delimited, parse_output

MIN_SECONDS = 0.1  # shorter input gives empty text without running the model
MIN_CHUNK_SECONDS = 0.5  # shorter tail chunks are zero-padded to this, as the official code does
SILENCE_PEAK = 1.0 / 32768  # below one 16-bit step everywhere: digital silence


def transcribe_chunk(model: Qwen3ASR, wave: np.ndarray, options: DecodeOptions = DecodeOptions()) -> Segment:
    """One pass of the model over up to ~30 s of audio; start/end are relative to the chunk."""
    seconds = len(wave) / SAMPLE_RATE
    segment = Segment(start=0.0, end=seconds, text="", language=options.language or "")
    if seconds < MIN_SECONDS or np.max(np.abs(wave)) < SILENCE_PEAK:
        return segment
    features = encode_audio(model, wave)
    prompt = build_prompt(model.tokenizer, features.shape[0], options.context, options.language)
    embeddings = model.embed(mx.array(prompt), features)
    result = generate(model, embeddings, options.budget(seconds), model.tokenizer.eos_token_ids)
    raw = model.tokenizer.decode(result.token_ids, skip_special_tokens=True)
    segment.language, segment.text = parse_output(raw, forced_language=options.language)
    segment.token_ids, segment.finish_reason = result.token_ids, result.finish_reason
    return segment


def join_texts(segments: list[Segment]) -> str:
    text = ""
    for segment in segments:
        piece = segment.text.strip()
        if not piece:
            continue
        needs_space = text and is_space_delimited(segment.language) and not text[-1].isspace()
        text += (" " if needs_space else "") + piece
    return text


def merge_languages(segments: list[Segment]) -> str:
    """Languages in order with consecutive repeats and unknowns removed: "English,German"."""
    merged: list[str] = []
    for segment in segments:
        if segment.language and (not merged or merged[-1] != segment.language):
            merged.append(segment.language)
    return ",".join(merged)


def transcribe(
    audio: AudioInput,
    model: Qwen3ASR,
    language: Optional[str] = None,
    context: Optional[str] = "",
    max_new_tokens: Optional[int] = None,
    chunk_seconds: float = 30.0,
    *,
    sample_rate: Optional[int] = None,
    options: Optional[DecodeOptions] = None,
    aligner: Optional[ForcedAligner] = None,
) -> Transcription:
    """Transcribe a file path, a float/int array, or an (array, sample_rate) pair.

    `language` forces the output language (one of the 30 supported names, any case); `context` is
    free text (names, terms) given to the model as its system prompt; `max_new_tokens` overrides the
    per-chunk token budget derived from the chunk's duration (or pass all three as `options`).
    `sample_rate`: the rate of a bare array (default 16000); files carry their own.
    `aligner`: a Qwen3-ForcedAligner (`mq.load`); each segment then gets `.words` (see `mq.align`).
    """
    options = decode_options(options, language, context, max_new_tokens)
    if aligner is not None:
        check_aligner(aligner)  # before the decoding, not after it
    wave = prepare_audio(audio if sample_rate is None else with_rate(audio, sample_rate))
    segments = []
    for start, chunk in split_audio(wave, chunk_seconds):
        if len(wave) > len(chunk) and len(chunk) < MIN_CHUNK_SECONDS * SAMPLE_RATE:
            chunk = np.pad(chunk, (0, int(MIN_CHUNK_SECONDS * SAMPLE_RATE) - len(chunk)))
        segment = transcribe_chunk(model, chunk, options)
        offset = start / SAMPLE_RATE
        segment.start, segment.end = offset, offset + min(segment.end, (len(wave) - start) / SAMPLE_RATE)
        segments.append(segment)
        mx.clear_cache()  # keep memory flat across many chunks
    if aligner is not None:
        align_segments(segments, wave, aligner)
    return Transcription(text=join_texts(segments), language=merge_languages(segments), segments=segments)


def decode_options(
    options: Optional[DecodeOptions], language: Optional[str], context: Optional[str], max_new_tokens: Optional[int]
) -> DecodeOptions:
    """`options`, or one built from the loose keyword arguments (not both)."""
    if options is None:
        return DecodeOptions(language, context, max_new_tokens)
    if (language, context or "", max_new_tokens) != (None, "", None):
        raise ValueError("pass either options= or language/context/max_new_tokens, not both")
    return options


def with_rate(audio: AudioInput, sample_rate: int) -> AudioInput:
    """A bare array paired with its rate; anything else (a path, a pair) must not get a second rate."""
    if isinstance(audio, np.ndarray):
        return (audio, sample_rate)
    raise ValueError("sample_rate= is for bare arrays: a file carries its own rate, and a pair already has one")
