"""Hostile files: a file is decoded from its own bytes only, and a small file cannot become hours of audio."""

import shutil
import subprocess

import numpy as np
import pytest
from test_audio import wav_bytes, write

from mlx_qwen3asr.audio.ffmpeg import UndecodableAudio, decode_with_ffmpeg
from mlx_qwen3asr.audio.io import MIN_FILE_SAMPLE_RATE, load_audio, prepare_audio

needs_ffmpeg = pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="ffmpeg is not on PATH")


def secret_wav(tmp_path):
    """Audio elsewhere on the machine that a playlist names: decoding it would be a leak. An mp3, as
    ffmpeg's hls demuxer only opens segments whose extension fits their format."""
    ints = (np.sin(np.arange(16000) / 5) * 8000).astype("<i2")
    wav = write(tmp_path, wav_bytes(ints.tobytes(), bits=16), name="secret.wav")
    if shutil.which("ffmpeg") is None:
        return wav
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", str(wav), str(tmp_path / "secret.mp3")], check=True)
    return tmp_path / "secret.mp3"


def playlists(target) -> dict[str, bytes]:
    return {
        "hls": f"#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n{target}\n#EXT-X-ENDLIST\n".encode(),
        "concat": f"ffconcat version 1.0\nfile '{target}'\n".encode(),
        "hls after a BOM": b"\xef\xbb\xbf" + f"#EXTM3U\n#EXTINF:10,\n{target}\n".encode(),
    }


@pytest.mark.parametrize("kind", ["hls", "concat", "hls after a BOM"])
def test_a_playlist_named_like_a_wav_is_refused_in_one_line(tmp_path, kind):
    path = write(tmp_path, playlists(secret_wav(tmp_path))[kind], name="upload.wav")
    with pytest.raises(ValueError, match=r"upload\.wav: it is a playlist .*, not audio") as e:
        prepare_audio(str(path))
    assert "\n" not in str(e.value), f"the refusal is not one line: {e.value!r}"


@needs_ffmpeg
@pytest.mark.parametrize("kind", ["hls", "concat"])
def test_ffmpeg_itself_never_opens_a_file_a_playlist_names(tmp_path, kind):
    """The allow-lists hold even where the first-bytes check is not asked (a playlist with junk before
    its header is still probed as one by some ffmpeg versions)."""
    path = write(tmp_path, playlists(secret_wav(tmp_path))[kind], name="upload.mp3")
    with pytest.raises(UndecodableAudio) as e:
        decode_with_ffmpeg(str(path), 16000)
    assert "@ 0x" not in str(e.value) and "\n" not in str(e.value), f"ffmpeg's raw log leaked: {e.value!r}"


def test_a_one_hertz_header_is_refused_before_it_becomes_hours_of_audio(tmp_path):
    path = write(tmp_path, wav_bytes(b"\x00\x01" * 500, bits=16, sample_rate=1), name="bomb.wav")
    with pytest.raises(ValueError, match=rf"bomb\.wav: its WAV header says 1 Hz, below the {MIN_FILE_SAMPLE_RATE} Hz"):
        load_audio(path)


def test_a_wav_longer_than_max_seconds_is_refused_from_its_header(tmp_path):
    path = write(tmp_path, wav_bytes(b"\x00\x00" * 8000 * 3, bits=16, sample_rate=8000))
    with pytest.raises(ValueError, match=r"longer than the limit of 2 s of audio"):
        prepare_audio(str(path), max_seconds=2)
    assert len(prepare_audio(str(path), max_seconds=3)) == 3 * 16000, "a file at the limit is read whole"


@needs_ffmpeg
def test_an_ffmpeg_file_longer_than_max_seconds_is_refused(tmp_path):
    wav = write(tmp_path, wav_bytes(b"\x00\x10" * 16000 * 3, bits=16))
    flac = tmp_path / "clip.flac"
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", str(wav), str(flac)], check=True)
    with pytest.raises(ValueError, match=r"clip\.flac: it is longer than the limit of 2\.5 s"):
        load_audio(flac, max_seconds=2.5)
    assert len(load_audio(flac, max_seconds=3)) == 3 * 16000, "a file at the limit is read whole"
