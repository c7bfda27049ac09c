"""The server's model calls: a batch of file jobs -> transcriptions, in ONE engine call.

[UploadJob(wave, DecodeOptions, words, on_segment)]
  -> transcribe_checked(waves, options per job (checked by each request), batch_size = --batch-size chunks per wave,
                         the server's PrefixCache: a context's prompt head computed once)
       each finished segment -> its job's on_segment (a streamed file's SSE deltas)
       after each wave -> between_waves() (the worker runs waiting live steps there)
  -> jobs that asked for words: mq.align_segments with the --aligner model
  -> jobs that asked for speakers: with_speakers(result, the --diarize model's turns of the job's wave)
  -> [Transcription], each the one mq.transcribe(..., aligner=, diarizer=) gives for that job alone
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
from mlx.nn import Module

from mlx_qwen3asr.decode.prefix_cache import DEFAULT_MAX_BYTES, PrefixCache
from mlx_qwen3asr.decode.transcribe import transcribe_checked
from mlx_qwen3asr.families.aligner.aligner import align_segments
from mlx_qwen3asr.families.recogniser import Recogniser
from mlx_qwen3asr.options import DecodeOptions
from mlx_qwen3asr.outputs.speakers import SpeakerDiarizer, with_speakers
from mlx_qwen3asr.result import Segment, Transcription
from mlx_qwen3asr.vad.detector import VoiceDetector


@dataclass
class ServedModels:
    """What the worker thread owns: the speech model, the forced aligner when --aligner names one, the
    speaker diarizer when --diarize names one, and the speech model's prompt heads by context (an LRU of at most `prefix_bytes`, --prefix-cache-mb):
    every file request and live session with a context already seen skips its prefill."""

    asr: Recogniser
    aligner: Optional[Module] = None  # a forced aligner (require_task checked it)
    diarizer: Optional[SpeakerDiarizer] = None
    prefix_bytes: int = DEFAULT_MAX_BYTES
    vad: Optional[VoiceDetector] = None  # --vad: the live sessions' end-pointer (None: Silero, as LiveSession's)
    vad_files: bool = False  # --vad-files: file requests decode only where `vad` hears speech
    partials: Optional[Recogniser] = None  # --partials-model: live partials from it, commits from asr (two-pass)
    prefixes: PrefixCache = field(init=False)

    def __post_init__(self):
        self.prefixes = PrefixCache(self.asr, self.prefix_bytes)


@dataclass
class UploadJob:
    """One uploaded file to decode (a POST /v1/audio/transcriptions), queued for the worker thread."""

    wave: np.ndarray  # 16 kHz mono float32, already checked by prepare_audio
    options: DecodeOptions = DecodeOptions()  # language, context, max_new_tokens
    words: bool = False  # time each word (needs ServedModels.aligner)
    speakers: bool = False  # label segments (and words) with speakers (needs ServedModels.diarizer)
    on_segment: Optional[Callable[[Segment], None]] = None  # called on the worker thread, in order


def transcribe_many(
    models: ServedModels, jobs: list[UploadJob], batch_size: int, between_waves: Callable[[], None] = lambda: None
) -> list[Transcription]:
    """Decode the jobs' chunks together, `batch_size` per wave; between_waves runs after each wave
    and after each job's alignment."""

    def segment_done(index: int, segment: Segment) -> None:
        if jobs[index].on_segment is not None:
            jobs[index].on_segment(segment)

    results = transcribe_checked(  # each job's options checked by its request (routes.checked_options)
        [job.wave for job in jobs], models.asr, [job.options for job in jobs], batch_size=batch_size,
        on_segment=segment_done, between_waves=between_waves, prefix_cache=models.prefixes,
        vad=models.vad if models.vad_files else None,
    )  # fmt: skip
    for index, (job, result) in enumerate(zip(jobs, results)):
        if job.words:
            align_segments(result.segments, job.wave, models.aligner)
            between_waves()
        if job.speakers:
            results[index] = with_speakers(result, models.diarizer.diarize(job.wave))
            between_waves()
    return results
