"""Non-WAV audio files -> float32 mono samples through ffmpeg, reading that one file and nothing else.

    path -> refuse a playlist by its first bytes (#EXTM3U, ffconcat, [playlist], XML manifests)
         -> ffmpeg -protocol_whitelist file -format_whitelist <AUDIO_DEMUXERS> -i file:PATH
                   -t <limit> -f f32le -ac 1 -ar RATE -                         [n] float32
         -> exit != 0: UndecodableAudio, one line, without ffmpeg's log (which holds heap addresses)

ffmpeg picks a demuxer by probing the bytes, whatever the file is called, and some demuxers open
other files by name: hls and dash (playlists), concat, image2 (sequences), tee... An upload named
`x.wav` holding `#EXTM3U` and a server path would otherwise be decoded from that path. So only the
audio and audio-in-video demuxers below may open, and only the `file` protocol (no http, no pipe
tricks). The file is read by path rather than through a pipe: an m4a whose index (moov) follows its
samples, as phones write them, cannot be read from a pipe (ffmpeg 5.1: "partial file").
"""

import os
import re
import shutil
import subprocess
from typing import Optional

import numpy as np

# Demuxer names as `ffmpeg -demuxers` lists them: speech-bearing audio and audio-in-video containers.
AUDIO_DEMUXERS = (
    "aac,ac3,aiff,amr,amrnb,amrwb,ape,asf,au,avi,caf,dts,eac3,flac,flv,g722,g723_1,g729,gsm,"
    "matroska,webm,mov,mp4,m4a,3gp,3g2,mj2,mp3,mpc,mpc8,mpeg,mpegts,nut,ogg,opus,oma,rm,sln,"
    "truehd,tta,voc,w64,wav,wsaud,wv,xwma"
)
# First bytes of text formats that name other files (playlists, manifests, concat lists).
PLAYLIST_HEADERS = (b"#EXTM3U", b"ffconcat", b"[playlist]", b"<?xml", b"<mpd", b"<smil", b"<asx")
_ADDRESS = re.compile(r"\[[^\]@]*@ 0x[0-9a-f]+\]\s*")  # "[mov,mp4 @ 0x55d2...] " log prefixes


class UndecodableAudio(ValueError):
    """ffmpeg could not decode the file (the message is one line, safe to show a remote client)."""


def playlist_kind(header: bytes) -> Optional[str]:
    """The playlist header `header` starts with (after a BOM and blank space), or None."""
    start = header.lstrip(b"\xef\xbb\xbf").lstrip()
    return next((h.decode() for h in PLAYLIST_HEADERS if start[: len(h)].lower() == h.lower()), None)


def decode_with_ffmpeg(path: str, sample_rate: int, max_seconds: Optional[float] = None) -> np.ndarray:
    """float32 mono samples at `sample_rate` (not checked for NaN here); at most max_seconds + one
    sample of them, so a longer file is noticed without decoding it all."""
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        raise ValueError(
            f"Cannot read {path}: only WAV is read natively; install ffmpeg "
            "(brew install ffmpeg / apt install ffmpeg) for other formats"
        )
    limit = [] if max_seconds is None else ["-t", f"{max_seconds + 2 / sample_rate:.6f}"]
    # "file:" keeps ffmpeg from taking the text before a colon in a path ("take:1.mp3") as a protocol.
    command = [ffmpeg, "-nostdin", "-v", "error", "-protocol_whitelist", "file", "-format_whitelist",
               AUDIO_DEMUXERS, "-i", "file:" + path, *limit, "-f", "f32le", "-ac", "1", "-ar", str(sample_rate),
               "-"]  # fmt: skip
    result = subprocess.run(command, capture_output=True, check=False)
    if result.returncode != 0:
        raise UndecodableAudio(
            f"Cannot read {path}: it is not a WAV file this module parses, and ffmpeg could not decode it "
            f"as audio (exit {result.returncode}: {ffmpeg_reason(result.stderr, path)}); "
            "pass a WAV, mp3, m4a, ogg, flac or webm file"
        )
    return np.frombuffer(result.stdout, "<f4")


def ffmpeg_reason(stderr: bytes, path: str) -> str:
    """ffmpeg's last log line, without log prefixes, heap addresses or the path, shortened."""
    stderr = stderr.replace(b"file:" + os.fsencode(path), b"input").replace(os.fsencode(path), b"input")
    lines = [line for line in stderr.decode(errors="replace").splitlines() if line.strip()]
    last = _ADDRESS.sub("", lines[-1] if lines else "no message").strip()
    return last[:120] or "no message"
