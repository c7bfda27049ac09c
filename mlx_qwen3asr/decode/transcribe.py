"""Offline transcription: any audio -> text, long audio split at its quietest points, chunks decoded
in batches.

    audios (path | array | (array, rate), one or many) -> 16 kHz mono float32 each
    -> chunks of at most model.chunk_seconds (Qwen3-ASR: 30 s; Fun-ASR-Nano: its one-pass limit, 122.88 s),
       each cut at the quietest 100 ms within the last 5 s before the limit
    -> the chunks of all inputs in order, `batch_size` at a time (a wave):
       features per chunk (model.features: Qwen3-ASR's log-mel, Fun-ASR-Nano's LFR fbank) -> one encoder
       pass for the wave -> a prompt per chunk (model.prompt_ids: its input's context, hotwords, language)
       -> greedy decode, the wave's rows together (generate.decode_batch)
       -> the answer parsed into (language, text) by the model (Qwen3-ASR: "language X<asr_text>text")
       -> text that only repeats the context over audio without speech: "" (decode/echo.py)
    -> per input: texts joined by script (model.join_text: no space next to Chinese/Japanese/Thai script)
    -> with aligner=: each segment's words timed on its own audio (families/aligner/aligner.py)

Memory is bounded by the wave: at most `batch_size` chunks' encoder outputs and KV caches exist at
once, whatever the length of the audio (decode/batch_size.py: default_batch_size).
"""

from collections.abc import Callable, Sequence
from typing import Optional, TypedDict, Union

import mlx.core as mx
import numpy as np
from mlx.nn import Module

from ..audio.io import SAMPLE_RATE, AudioInput, prepare_audio
from ..families.aligner.aligner import align_segments, check_aligner
from ..families.recogniser import Recogniser, encode_audios
from ..families.registry import require_task
from ..options import DecodeOptions, options_per_input
from ..outputs.speakers import SpeakerDiarizer, with_speakers
from ..result import Segment, Transcription
from ..runtime.allocator import release_between_batches
from ..runtime.typing import Unpack
from ..text.script import join_text
from ..vad.detector import VoiceDetector
from ..vad.energy import EnergyVad, contains_speech
from .answer import heard_answer
from .batch_size import checked_sizes
from .generate import StopRules, decode_batch
from .prefix_cache import PrefixCache, prefix_cache_for

MIN_SECONDS = 0.1  # shorter input gives empty text without running the model
MIN_CHUNK_SECONDS = 0.5  # shorter tail chunks are zero-padded to this, as the official code does


def transcribe_chunks(
    model: Recogniser,
    waves: Sequence[np.ndarray],
    options: Sequence[DecodeOptions],
    prefixes: Optional[PrefixCache] = None,
) -> list[Segment]:
    """Chunks of up to model.chunk_seconds decoded together, each with its own options; each row's tokens are
    those it gets alone. start/end are relative to each chunk. Each row starts from a copy of its
    context's prompt head in `prefixes` (None: a PrefixCache for this call) and prefills only its audio
    and tail (all of its prompt with PrefixCache.off)."""
    prefixes = prefix_cache_for(model, prefixes)
    segments = [Segment(0.0, len(w) / SAMPLE_RATE, "", o.language or "") for w, o in zip(waves, options)]
    rows = [i for i, w in enumerate(waves) if has_speech(w)]
    if not rows:
        return segments
    features = encode_audios(model, [waves[i] for i in rows])
    embeddings, caches = [], []
    for i, f in zip(rows, features):
        each = options[i]
        ids = model.prompt_ids(f.shape[0], each.context, each.language, each.hotwords)
        prompt = model.embed(mx.array(ids), f)
        cache = prefixes.cache(each.context, each.language, prompt_length=len(ids), hotwords=each.hotwords)
        embeddings.append(prompt[:, cache[0].offset :])  # a cached head: only the audio and the tail
        caches.append(cache)
    eos = model.tokenizer.eos_token_ids
    rules = [StopRules(eos, options[i].budget(segments[i].end)) for i in rows]
    results = decode_batch(model, embeddings, caches, rules)
    for i, result in zip(rows, results):
        segment = segments[i]
        segment.language, segment.text, segment.context_echo = heard_answer(
            model, result.token_ids, options[i], waves[i]
        )
        segment.token_ids, segment.finish_reason = result.token_ids, result.finish_reason
    return segments


def has_speech(wave: np.ndarray) -> bool:
    """Long enough and holding speech (not silence, dither or clicks): worth running the model on."""
    return len(wave) / SAMPLE_RATE >= MIN_SECONDS and contains_speech(wave)  # the rule of vad/energy.py


def chunks_of(
    wave: np.ndarray, chunk_seconds: float, vad: Optional[VoiceDetector] = None
) -> list[tuple[int, int, np.ndarray]]:
    """(start sample, samples covered, chunk) to decode: the stretches `vad` says to decode (None or
    EnergyVad: all of it, split at quiet points; Silero VAD: only its speech), a short tail chunk
    zero-padded as the official code does; a chunk covers the audio skipped before it (the last one,
    after it too)."""
    pieces = (vad or EnergyVad()).speech_pieces(wave, chunk_seconds)
    ends = [end for _, end in pieces[:-1]] + [len(wave)]
    covered = [end - before for end, before in zip(ends, [0] + ends[:-1])]
    minimum = int(MIN_CHUNK_SECONDS * SAMPLE_RATE)
    return [
        (
            start,
            skipped,
            np.pad(chunk, (0, minimum - len(chunk))) if len(wave) > len(chunk) and len(chunk) < minimum else chunk,
        )
        for (start, end), skipped in zip(pieces, covered)
        for chunk in [wave[start:end]]
    ]


def join_texts(segments: list[Segment], join: Callable[[str, str], str] = join_text) -> str:
    """The segments' texts joined by `join` (the model's join_text; the default joins by script)."""
    text = ""
    for segment in segments:
        text = join(text, segment.text.strip())
    return text


def merge_languages(segments: list[Segment]) -> str:
    """Languages in order with consecutive repeats and unknowns removed: "English,German"."""
    merged: list[str] = []
    for segment in segments:
        if segment.language and (not merged or merged[-1] != segment.language):
            merged.append(segment.language)
    return ",".join(merged)


class Stages(TypedDict, total=False):
    """What `transcribe` takes besides the decode's own keywords, as `transcribe_batch` takes it: the
    sizes (chunk_seconds, batch_size), the stages around the decode (aligner, diarizer, vad,
    prefix_cache) and the hooks (on_progress, on_segment, between_waves). Each is described there."""

    chunk_seconds: Optional[float]
    batch_size: Optional[int]
    aligner: Optional[Module]
    diarizer: Optional[SpeakerDiarizer]
    vad: Optional[VoiceDetector]
    prefix_cache: Optional[PrefixCache]
    on_progress: Optional[Callable[[float], None]]
    on_segment: Optional[Callable[[int, Segment], None]]
    between_waves: Callable[[], None]


def transcribe(
    audio: AudioInput,
    model: Recogniser,
    *,
    language: Optional[str] = None,
    context: Optional[str] = "",
    max_new_tokens: Optional[int] = None,
    hotwords: Sequence[str] = (),
    options: Optional[DecodeOptions] = None,
    sample_rate: Optional[int] = None,
    **stages: Unpack[Stages],
) -> Transcription:
    """Transcribe a file path, a float/int array, or an (array, sample_rate) pair.

    `language` forces the output language (a name in any case or an ISO-639-1 code, one of the model's
    `languages`); `context` is free text (names, terms) given to the model; `hotwords` are terms to
    recognise (Fun-ASR-Nano: its hotword block; Qwen3-ASR: a line after the context); `max_new_tokens`
    overrides the per-chunk token budget derived from the chunk's duration. Or pass them as `options`
    (a DecodeOptions), not both. `sample_rate`: the rate of a bare array. An array carries no rate, so
    the library cannot know it: a bare array is taken to be 16 kHz unless `sample_rate` (or an
    (array, rate) pair) says otherwise; 44.1 kHz audio taken as 16 kHz is heard 2.76x slowed down,
    with no error. Files carry their own rate.
    The stages, as in transcribe_batch (batch_size defaults to 1 here):
    `chunk_seconds`: the longest piece decoded at once (1 or more; default the model's `chunk_seconds`,
    Qwen3-ASR 30 s, Fun-ASR-Nano one pass up to 122.88 s); longer input is cut at its quietest points
    before each limit. `batch_size`: chunks of a long input decoded together (same text, faster).
    `aligner`: a Qwen3-ForcedAligner (`mq.load`); each segment then gets `.words` (see `mq.align`).
    `prefix_cache`: the prompt's head (system turn with the context) computed once for all chunks
    (None: a PrefixCache for this call), or kept across calls in a `PrefixCache(model)` (live sessions
    and the server pass theirs); `PrefixCache.off(model)`: every chunk prefills its whole prompt (the
    same tokens).
    `vad`: a Silero VAD (`mq.load_vad()`): only the stretches it hears speech in are decoded, cut in
    the pauses between them; noise, hum, music and silence never reach the recogniser. Without it,
    the whole audio is decoded, cut at its quietest points (chunks without an energy onset skipped).
    `diarizer`: pyannote's speaker diarization (`mq.load`); every segment (and word, with an aligner) then
    gets `.speaker`, segments split where it changes (outputs/speakers.py). `on_progress(seconds)`: as
    transcribe_batch's.
    """
    options = DecodeOptions.either(options, language, context, max_new_tokens, hotwords)
    return transcribe_batch([audio], model, options=options, sample_rate=sample_rate, **{"batch_size": 1, **stages})[0]


def check_stages(stages: dict) -> None:
    """TypeError, one line, for a keyword that is not a stage; a decode option names its road."""
    for name in stages:
        if name not in Stages.__annotations__:
            fix = f": pass options=mq.DecodeOptions({name}=...)" if name in DecodeOptions.__dataclass_fields__ else ""
            raise TypeError(f"transcribe_batch() got an unexpected keyword argument {name!r}{fix}")


def check_before_work(model: Recogniser, per_input: Sequence[DecodeOptions], aligner: Optional[Module]) -> None:
    """What would fail late fails first, in one line: the model's task, each input's options, the aligner."""
    require_task(model, "transcribe", "model")
    for each in set(per_input):
        each.check(model)
    if aligner is not None:
        check_aligner(aligner)


def transcribe_batch(
    audios: Sequence[AudioInput],
    model: Recogniser,
    *,
    options: Union[DecodeOptions, Sequence[DecodeOptions], None] = None,
    sample_rate: Optional[int] = None,
    **stages: Unpack[Stages],
) -> list[Transcription]:
    """Transcribe several inputs, their chunks decoded `batch_size` at a time (chunks of different
    inputs share batches). Each Transcription is the one `transcribe` gives for that input alone.

    `options`: a DecodeOptions for all inputs, or a list with one per input (None: DecodeOptions()).
    `sample_rate`: the rate of every bare array among `audios`; an array carries none, so without
    it a bare array is taken to be 16 kHz (give other rates here, or as (array, rate) pairs).
    The stages (Stages): `batch_size`: default `default_batch_size(model)`. `chunk_seconds`, `aligner`,
    `prefix_cache`, `vad`, `diarizer`: as in `transcribe`, for every input. `on_progress(seconds)` is called
    after each batch with the seconds of audio it finished (with a diarizer, then as it diarizes: twice the
    audio in all). `on_segment(input index, segment)` is called for each segment as its batch finishes, in
    order per input, times in its input (words come later: the aligner runs once all are decoded).
    `between_waves()` runs after each batch (the server's live steps run there).
    """
    per_input = options_per_input(len(audios), options)
    check_stages(stages)
    check_before_work(model, per_input, stages.get("aligner"))
    audios = audios if sample_rate is None else [with_rate(audio, sample_rate) for audio in audios]
    return transcribe_checked(audios, model, per_input, **stages)


def transcribe_checked(
    audios: Sequence[AudioInput],
    model: Recogniser,
    per_input: Sequence[DecodeOptions],
    *,
    batch_size: Optional[int] = None,
    chunk_seconds: Optional[float] = None,
    aligner: Optional[Module] = None,
    diarizer: Optional[SpeakerDiarizer] = None,
    vad: Optional[VoiceDetector] = None,
    prefix_cache: Optional[PrefixCache] = None,
    on_segment: Optional[Callable[[int, Segment], None]] = None,
    on_progress: Optional[Callable[[float], None]] = None,
    between_waves: Callable[[], None] = lambda: None,
) -> list[Transcription]:
    """transcribe_batch for callers whose front door has checked the model, the aligner and `per_input`
    (one DecodeOptions per input) already (check_before_work: the CLI, folder runs, the server, live
    finals), so that every road checks its options once. `audios`: paths, 16 kHz arrays or (array, rate)
    pairs (transcribe_batch pairs bare arrays with its `sample_rate=`); the rest as in transcribe_batch."""
    chunk_seconds, batch_size = checked_sizes(model, chunk_seconds, batch_size)
    prefixes = prefix_cache_for(model, prefix_cache)
    waves = [prepare_audio(audio) for audio in audios]
    work = [(i, *piece) for i, wave in enumerate(waves) for piece in chunks_of(wave, chunk_seconds, vad)]
    segments: list[list[Segment]] = [[] for _ in waves]
    for first in range(0, len(work), batch_size):
        batch = work[first : first + batch_size]
        decoded = transcribe_chunks(model, [chunk for *_, chunk in batch], [per_input[i] for i, *_ in batch], prefixes)
        for (i, start, _, _), segment in zip(batch, decoded):
            offset, total = start / SAMPLE_RATE, len(waves[i]) / SAMPLE_RATE
            segment.start, segment.end = offset, offset + min(segment.end, total - offset)
            segments[i].append(segment)
            if on_segment:
                on_segment(i, segment)
        release_between_batches()  # keep memory flat across many batches
        if on_progress:
            on_progress(sum(covered for _, _, covered, _ in batch) / SAMPLE_RATE)
        between_waves()
    for wave, input_segments in zip(waves, segments if aligner is not None else []):
        align_segments(input_segments, wave, aligner)
    results = [Transcription(join_texts(s, model.join_text), merge_languages(s), s) for s in segments]
    if diarizer is not None:
        diarized = (diarizer.diarize(wave, on_progress=on_progress) for wave in waves)
        results = [with_speakers(result, turns) for result, turns in zip(results, diarized)]
    return results


def with_rate(audio: AudioInput, sample_rate: int) -> AudioInput:
    """A bare array paired with its rate; anything else (a path, a pair) must not get a second rate."""
    if isinstance(audio, np.ndarray):
        return (audio, sample_rate)
    raise ValueError("sample_rate= is for bare arrays: a file carries its own rate, and a pair already has one")
