"""Word timestamps: audio + its known text -> one `Word(text, start, end)` per unit, in seconds.

    audio -> 16 kHz mono -> log-mel -> ForcedAligner.encode (windows of 8 s, or full attention)
    text, language -> units.py -> token ids per unit -> prompt (audio block, unit <ts> <ts> ...)
    -> one forward -> argmax class at each <timestamp> -> x 80 ms -> repair.py -> Words

`align_segments` gives each decoded segment of a transcription its words: each segment's own audio,
aligned with the segment's language and shifted by its start, as the official `transcribe(...,
return_time_stamps=True)` does per chunk.

Defined results for odd input: a text with no alignable unit (empty, or punctuation only) gives [];
a word may have start == end (the model gave it no time): it is kept, never dropped.
"""

from collections.abc import Sequence
from typing import Optional

import mlx.core as mx
import numpy as np

from ...audio.features import log_mel_spectrogram
from ...audio.io import SAMPLE_RATE, AudioInput, prepare_audio
from ...result import Segment, Word
from ...runtime.two_streams import two_streams
from ...text.languages import CODES
from ..registry import require_task
from .model import ForcedAligner, prompt_ids
from .repair import class_times_ms, ms_to_seconds, repair_times_ms
from .units import split_units

MIN_CHUNK_SECONDS = 0.5  # a shorter tail chunk is zero-padded to this, as transcribe and the official do


def max_seconds(aligner: ForcedAligner) -> float:
    """The last class's time: 5000 classes x 80 ms = 400 s for the real checkpoint."""
    return aligner.args.classify_num * aligner.args.timestamp_segment_time / 1000.0


def checked_language(aligner: ForcedAligner, language: Optional[str]) -> Optional[str]:
    """`language` (a name in any case, or its ISO-639-1 code) in the checkpoint's own spelling ("english",
    "en" -> "English"); None stays None."""
    if language is None or not language.strip():
        return None
    language = CODES.get(language.strip().lower(), language)
    names = {name.lower(): name for name in aligner.args.support_languages}
    if names and language.strip().lower() not in names:
        raise ValueError(
            f"The aligner does not support language {language!r}: use one of {', '.join(names.values())}, "
            "or language=None for the whitespace/CJK rules"
        )
    return names.get(language.strip().lower(), language.strip())


def check_aligner(aligner) -> None:
    """ValueError, one line, unless `aligner` is a forced aligner (a recogniser passed as one, say)."""
    require_task(aligner, "align", "aligner")


def timestamp_classes(
    aligner: ForcedAligner, wave: np.ndarray, units: Sequence[str], full_attention: bool
) -> list[int]:
    """The argmax class at each <timestamp> of the prompt for `units` (2 per unit; 2 for no unit)."""
    features = aligner.encode(log_mel_spectrogram(wave), full_attention)
    unit_ids = [aligner.tokenizer.encode(unit) for unit in units]
    ids = prompt_ids(unit_ids, features.shape[0], aligner.args)
    with two_streams():  # on the CPU: the decoder's layers in halves on two streams (runtime/two_streams.py)
        return aligner.timestamp_classes(mx.array(ids), features)


def words_from_classes(units: Sequence[str], classes: Sequence[int], segment_time_ms: float) -> list[Word]:
    ms = repair_times_ms(class_times_ms(classes, segment_time_ms))
    return [Word(unit, ms_to_seconds(ms[2 * i]), ms_to_seconds(ms[2 * i + 1])) for i, unit in enumerate(units)]


def align_wave(
    aligner: ForcedAligner, wave: np.ndarray, text: str, language: Optional[str], full_attention: bool = False
) -> list[Word]:
    """16 kHz mono float32 wave + text -> words (language already checked)."""
    units = split_units(text, language)
    if not units:
        return []
    seconds = len(wave) / SAMPLE_RATE
    if seconds > max_seconds(aligner):
        raise ValueError(
            f"audio of {seconds:.1f} s is longer than the aligner's time grid ({max_seconds(aligner):.0f} s): "
            "align shorter pieces, or use transcribe(..., aligner=...), which aligns each <= 30 s chunk"
        )
    if len(wave) == 0:
        raise ValueError("the audio is empty: there is nothing to align the text to")
    classes = timestamp_classes(aligner, wave, units, full_attention)
    return words_from_classes(units, classes, aligner.args.timestamp_segment_time)


def align(
    audio: AudioInput,
    text: str,
    aligner: ForcedAligner,
    language: Optional[str] = None,
    *,
    full_attention: bool = False,
    sample_rate: Optional[int] = None,
) -> list[Word]:
    """Each unit of `text` with its start and end in `audio`, in seconds.

    Units are the official aligner's: words with punctuation removed (`e-mail` -> `email`), every
    Chinese character on its own; Japanese words from nagisa (the `ja` extra), Korean as soynlp.
    `language`: one of the aligner's languages (any case), or None for the whitespace/CJK rules
    (the official code requires a language; those rules are what it applies to all but Japanese and
    Korean). `full_attention=True` lets every audio token see the whole clip, as the official wrapper
    does on CPU; the default keeps the 8 s windows the model was trained with (same below 8 s).
    Audio up to the class grid's end (400 s) is accepted; text without any letter or digit gives [].
    """
    check_aligner(aligner)
    language = checked_language(aligner, language)
    if sample_rate is not None:
        if not isinstance(audio, np.ndarray):
            raise ValueError("sample_rate= is for bare arrays: a file carries its own rate")
        audio = (audio, sample_rate)
    return align_wave(aligner, prepare_audio(audio), text, language, full_attention)


def align_segments(
    segments: list[Segment], wave: np.ndarray, aligner: ForcedAligner, full_attention: bool = False
) -> None:
    """Give each segment `.words` in seconds of `wave` (16 kHz mono): its own audio aligned with its
    language, times shifted by its start and rounded to ms as the official code does. A segment
    without text gets []. A language the aligner does not know gets the whitespace/CJK rules, which
    is what the official code applies to it."""
    check_aligner(aligner)
    known = {name.lower() for name in aligner.args.support_languages}
    for segment in segments:
        begin, end = round(segment.start * SAMPLE_RATE), round(segment.end * SAMPLE_RATE)
        language = segment.language if segment.language.lower() in known else None
        chunk = wave[begin:end]
        if len(wave) > len(chunk) and len(chunk) < MIN_CHUNK_SECONDS * SAMPLE_RATE:
            chunk = np.pad(chunk, (0, int(MIN_CHUNK_SECONDS * SAMPLE_RATE) - len(chunk)))
        words = align_wave(aligner, chunk, segment.text, language, full_attention)
        offset = segment.start
        segment.words = [Word(w.text, round(w.start + offset, 3), round(w.end + offset, 3)) for w in words]
