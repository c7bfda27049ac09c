"""The server's model calls: a batch of file jobs -> transcriptions, and the pieces of a streamed file.

    [FileJob(wave, DecodeOptions)] -> transcribe_many -> [Transcription]   (the ONE engine call)
    wave -> stream_pieces -> [(offset seconds, piece <= 30 s)]  each piece one job, so a streamed
            file sends the text of each piece as soon as it is decoded (and shares the queue fairly)
    [Transcription of each piece] -> joined -> one Transcription with the segments in file time
"""

from dataclasses import dataclass, replace
import numpy as np

import mlx_qwen3asr as mq
from mlx_qwen3asr.audio.split import split_audio
from mlx_qwen3asr.transcribe import MIN_CHUNK_SECONDS, join_texts, merge_languages


@dataclass
class FileJob:
    wave: np.ndarray  # 16 kHz mono float32, already checked by mq.prepare_audio
    options: mq.DecodeOptions = mq.DecodeOptions()  # language, context, max_new_tokens


def transcribe_many(model: mq.Qwen3ASR, jobs: list[FileJob]) -> list[mq.Transcription]:
    """Decode jobs together where the engine allows. Batching is one line away: when
    mq.transcribe_batch lands (issue 11), the loop below becomes
        mq.transcribe_batch([j.wave for j in jobs], model, language=[j.options.language for j in jobs],
                            context=[j.options.context for j in jobs], batch_size=len(jobs))
    """
    return [mq.transcribe(job.wave, model, options=job.options) for job in jobs]


def stream_pieces(wave: np.ndarray, chunk_seconds: float = 30.0) -> list[tuple[float, np.ndarray]]:
    """The chunks mq.transcribe would decode, as (start seconds, samples); a short tail is padded
    as transcribe pads it, so the joined pieces give transcribe's text."""
    pieces = split_audio(wave, chunk_seconds)
    min_samples = int(MIN_CHUNK_SECONDS * mq.SAMPLE_RATE)
    padded = []
    for start, chunk in pieces:
        if len(pieces) > 1 and len(chunk) < min_samples:
            chunk = np.pad(chunk, (0, min_samples - len(chunk)))
        padded.append((start / mq.SAMPLE_RATE, chunk))
    return padded


def joined(parts: list[tuple[float, mq.Transcription]], duration: float) -> mq.Transcription:
    """Per-piece results (start seconds, transcription) -> one transcription in file time."""
    segments = [replace(s, start=offset + s.start, end=min(offset + s.end, duration))
                for offset, part in parts for s in part.segments]  # fmt: skip
    return mq.Transcription(join_texts(segments), merge_languages(segments), segments)
