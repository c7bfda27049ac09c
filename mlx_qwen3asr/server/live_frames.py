"""A live connection's binary frames -> samples [frames, channels] and the gaps their numbers prove.

    frame = [index: 8 bytes, little-endian unsigned, with numbered=true] + samples (pcm16 / float32,
            little-endian, `channels` interleaved, at the session's sample_rate)
    index == frames received so far   -> the samples
    index >  frames received so far   -> a gap of (index - received) / sample_rate seconds, then the samples:
                                         frames the client sent were lost on the way (the server can prove it)
    index <  frames received so far   -> refused: it would repeat audio already heard

Unnumbered frames are taken as contiguous, as before: a client that may drop audio (a browser page whose
socket reconnects, a capture thread that falls behind) numbers its frames so that nothing is joined
across a hole without the session saying so.
"""

from typing import Optional

import numpy as np

from .errors import APIError

ENCODINGS = {"pcm16": np.dtype("<i2"), "float32": np.dtype("<f4")}
INDEX_BYTES = 8


class FrameReader:
    def __init__(self, encoding: str, channels: int, sample_rate: int, numbered: bool):
        self.encoding, self.dtype, self.channels = encoding, ENCODINGS[encoding], channels
        self.sample_rate, self.numbered = sample_rate, numbered
        self.frames = 0  # frames (one sample per channel) received: the next numbered frame's index

    def read(self, data: bytes) -> tuple[Optional[float], np.ndarray]:
        """(seconds lost before this frame or None, its samples [n, channels]); a bad frame is an APIError."""
        index = int.from_bytes(data[:INDEX_BYTES], "little") if self.numbered else self.frames
        payload = data[INDEX_BYTES:] if self.numbered else data
        frame_bytes = self.dtype.itemsize * self.channels
        if len(payload) % frame_bytes or (self.numbered and len(data) < INDEX_BYTES):
            header = f"an {INDEX_BYTES}-byte index, then " if self.numbered else ""
            raise APIError(
                400,
                f"A {self.encoding} frame must hold {header}whole samples ({self.dtype.itemsize} bytes each, "
                f"{self.channels} channel(s) interleaved), got {len(payload)} bytes of samples; it was dropped",
                param="audio",
            )
        samples = np.frombuffer(payload, self.dtype).reshape(-1, self.channels)
        if self.dtype.kind == "f" and not np.isfinite(samples).all():
            raise APIError(400, "The frame holds NaN or infinite samples; it was dropped", param="audio")
        if index < self.frames:
            raise APIError(
                400,
                f"Frame {index} repeats audio already received (frames 0 to {self.frames - 1}); it was dropped: "
                "number each frame by the index of its first sample per channel, counted from 0",
                param="audio",
            )
        gap = (index - self.frames) / self.sample_rate if index > self.frames else None
        self.frames = index + len(samples)
        return gap, samples
