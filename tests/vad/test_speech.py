"""Offline speech finding: transcribe(..., vad=vad) decodes only where Silero VAD hears speech."""

import json
import subprocess
import sys

import numpy as np
import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.decode.transcribe import chunks_of
from mlx_qwen3asr.testing.signals import write_wav
from mlx_qwen3asr.vad.speech import MAX_GAP_SECONDS
from tests.vad_goldens import wave_of

RATE = mq.SAMPLE_RATE


@pytest.fixture(scope="module")
def vad() -> mq.SileroVad:
    return mq.load_vad()


def test_chunks_hold_every_speech_segment_and_skip_long_stretches_without_speech(vad):
    wave = wave_of("long_60s")
    chunks = chunks_of(wave, 10.0, vad)
    ranges = [(start, start + len(chunk)) for start, _, chunk in chunks]
    speech = vad.speech_samples(wave)
    for a, b in speech:
        assert any(lo <= a and b <= hi for lo, hi in ranges) or b - a > 10 * RATE, f"speech {a}-{b} not decoded"
    for lo, hi in ranges:
        assert hi - lo <= 10 * RATE, (lo, hi)
        inside = [(a, b) for a, b in speech if lo <= a < hi]
        gaps = [c - b for (_, b), (c, _) in zip(inside, inside[1:])]
        assert all(g <= MAX_GAP_SECONDS * RATE for g in gaps), f"a chunk {lo}-{hi} spans a long silence: {gaps}"
    decoded = sum(hi - lo for lo, hi in ranges)
    assert decoded < 0.7 * len(wave), f"{decoded / RATE:.1f} s of {len(wave) / RATE:.1f} s decoded"
    assert sum(covered for _, covered, _ in chunks) == len(wave), "progress must add up to the whole input"


def test_noise_hum_and_tones_are_not_decoded_with_the_vad_and_are_without_it(tiny_model, vad):
    audio = np.concatenate([wave_of(n) for n in ("white_noise", "hum", "tones", "pink_noise", "typing")])
    with_vad = mq.transcribe(audio, tiny_model, vad=vad, max_new_tokens=8)
    assert (with_vad.text, with_vad.segments) == ("", []), with_vad
    without = mq.transcribe(audio, tiny_model, max_new_tokens=8)
    assert sum(len(s.token_ids or []) for s in without.segments) > 0, "the energy rule decodes this audio"


def test_speech_segments_are_timed_in_the_whole_input(tiny_model, vad):
    wave = wave_of("speech_pauses")
    result = mq.transcribe(wave, tiny_model, vad=vad, max_new_tokens=4, chunk_seconds=5.0)
    first = vad.speech_samples(wave)[0][0] / RATE
    assert result.segments and result.segments[0].start == pytest.approx(first), result.segments
    assert all(a.end <= b.start for a, b in zip(result.segments, result.segments[1:])), result.segments


def test_the_cli_with_vad_silero_writes_nothing_for_noise_and_refuses_ray_in_one_line(tiny_checkpoint, tmp_path):
    noise = tmp_path / "hum.wav"
    write_wav(noise, np.concatenate([wave_of("hum"), wave_of("tones")]))
    args = [str(noise), "--model", str(tiny_checkpoint), "--max-new-tokens", "4", "-f", "json"]
    run = subprocess.run(
        [sys.executable, "-m", "mlx_qwen3asr", *args, "--vad", "silero"], capture_output=True, text=True
    )
    assert run.returncode == 0 and json.loads(run.stdout)["segments"] == [], run.stdout + run.stderr
    ray = subprocess.run(
        [sys.executable, "-m", "mlx_qwen3asr", *args, "-o", str(tmp_path), "--ray", "--vad", "silero"],
        capture_output=True,
        text=True,
    )
    assert ray.returncode == 2 and "--vad silero is not available with --ray" in ray.stderr, ray.stderr
