"""Make the Silero VAD goldens in tests/fixtures/silero_vad/ with the REAL reference (dev-only).

Runs in a reference venv, never in the project's (torch is no dependency of ours):
    python3 -m venv /work/ref-venvs/silero/venv
    /work/ref-venvs/silero/venv/bin/pip install torch==2.13.0 silero-vad==6.2.3 soxr numpy   # a CPU torch first
    /work/ref-venvs/silero/venv/bin/python scripts/make_vad_goldens.py      # needs espeak-ng on PATH

    clips: espeak-ng speech (22.05 kHz -> 16 kHz with soxr "HQ", as the package resamples), noise, hum,
      clicks, typing, tones, built from fixed seeds -> 16-bit WAV files (what the tests read)
    -> each clip as the tests see it (int16 / 32768) -> silero-vad's load_silero_vad() (the .jit), the
       get_speech_timestamps loop: reset_states, 512-sample windows, the last zero-padded
    -> goldens.json: per clip its probabilities and get_speech_timestamps' segments (samples and
       return_seconds=True) for several argument sets; the 60 s clip is the others joined (RECIPE).
A clip at 8 kHz is judged by the reference on its 16 kHz resampling (soxr "HQ", ceil(n * 2) samples).
"""

import json
import subprocess
import wave
from pathlib import Path

import numpy as np
import soxr
import torch
from silero_vad import get_speech_timestamps, load_silero_vad

RATE = 16000
OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "silero_vad"
PHRASES = [
    "The quick brown fox jumps over the lazy dog.",
    "Please call me back when you get this message.",
    "It will rain tomorrow in the afternoon.",
    "Seven",
    "We should meet at the station at noon.",
]
PAUSES = [0.2, 0.5, 1.0, 2.0]  # seconds of silence between the phrases
ARGUMENTS = {  # get_speech_timestamps keyword sets the goldens hold
    "default": {},
    "sensitive": {"threshold": 0.3, "min_speech_duration_ms": 100, "min_silence_duration_ms": 50},
    "patient": {"threshold": 0.6, "min_silence_duration_ms": 300, "speech_pad_ms": 100},
    "wide": {"min_speech_duration_ms": 500, "speech_pad_ms": 250, "neg_threshold": 0.2},
}
LONG = "long_60s"
RECIPE = ["speech_pauses", "white_noise", "speech_snr10", "hum", "clicks", "speech_snr0", "tones", "typing"]
RECIPE += ["pink_noise", "speech_pauses"]


def speak(text: str, voice: str = "en-us") -> np.ndarray:
    """espeak-ng's WAV (22.05 kHz, 16-bit) -> float32 at 16 kHz, peak 0.5."""
    raw = subprocess.run(["espeak-ng", "-v", voice, "-s", "165", "--stdout", text], capture_output=True, check=True)
    samples = np.frombuffer(raw.stdout[44:], "<i2").astype(np.float32) / 32768.0
    audio = soxr.resample(samples, 22050, RATE, quality="HQ")
    return (audio / np.max(np.abs(audio)) * 0.5).astype(np.float32)


def level(x: np.ndarray, db: float) -> np.ndarray:
    return (x / np.sqrt(np.mean(x.astype(np.float64) ** 2)) * 10 ** (db / 20)).astype(np.float32)


def pink(n: int, rng: np.random.Generator) -> np.ndarray:
    spectrum = np.fft.rfft(rng.standard_normal(n))
    spectrum[1:] /= np.sqrt(np.arange(1, len(spectrum)))
    spectrum[0] = 0
    return np.fft.irfft(spectrum, n).astype(np.float32)


def speech_with_pauses() -> np.ndarray:
    parts = [np.zeros(int(0.3 * RATE), np.float32)]
    for phrase, pause in zip(PHRASES, PAUSES + [0.5]):
        parts += [speak(phrase), np.zeros(int(pause * RATE), np.float32)]
    return np.concatenate(parts)


def in_noise(speech: np.ndarray, snr_db: float, rng: np.random.Generator) -> np.ndarray:
    noise = pink(len(speech), rng) + 0.5 * rng.standard_normal(len(speech)).astype(np.float32)
    speech_db = 10 * np.log10(np.mean(speech.astype(np.float64) ** 2))
    mixed = speech + level(noise, speech_db - snr_db)
    return (mixed / max(1.0, np.max(np.abs(mixed)) / 0.9)).astype(np.float32)


def transients(seconds: float, rng: np.random.Generator, typing: bool) -> np.ndarray:
    """Clicks (2 ms steps at 0.8) or key presses (decaying noise bursts) on a -70 dB floor."""
    n = int(seconds * RATE)
    audio = level(rng.standard_normal(n), -70.0)
    t = 0.2
    while t < seconds - 0.1:
        i = int(t * RATE)
        if typing:
            burst = rng.standard_normal(400) * np.exp(-np.arange(400) / 80.0) * rng.uniform(0.05, 0.3)
            audio[i : i + 400] += burst.astype(np.float32)
            t += rng.uniform(0.08, 0.3)
        else:
            audio[i : i + 32] += 0.8
            t += rng.uniform(0.3, 0.9)
    return audio


def tones(seconds: float, rng: np.random.Generator) -> np.ndarray:
    """A melody: notes of 0.2-0.5 s, four harmonics, attack and decay."""
    out, t = [], 0.0
    while t < seconds:
        length = rng.uniform(0.2, 0.5)
        f0 = 220.0 * 2 ** (rng.integers(0, 24) / 12)
        k = np.arange(int(length * RATE)) / RATE
        note = sum(np.sin(2 * np.pi * f0 * h * k) / h for h in range(1, 5))
        note *= np.minimum(k / 0.01, 1.0) * np.exp(-k / 0.3)
        out.append(note.astype(np.float32))
        t += length
    return level(np.concatenate(out)[: int(seconds * RATE)], -20.0)


def hum(seconds: float, rng: np.random.Generator) -> np.ndarray:
    """A fan: 50 Hz and harmonics over low-passed noise."""
    k = np.arange(int(seconds * RATE)) / RATE
    tone = sum(np.sin(2 * np.pi * 50 * h * k + h) / h for h in range(1, 8))
    rumble = np.convolve(rng.standard_normal(len(k)), np.ones(16) / 16, mode="same")
    return level(level(tone, -30.0) + level(rumble, -35.0), -28.0)


def clips() -> dict:
    rng = np.random.default_rng(36)
    speech = speech_with_pauses()
    short = np.concatenate([speak(PHRASES[0]), np.zeros(RATE // 2, np.float32), speak(PHRASES[2])])
    return {
        "speech_pauses": speech,
        "speech_snr10": in_noise(short, 10.0, rng),
        "speech_snr0": in_noise(short, 0.0, rng),
        "white_noise": level(rng.standard_normal(3 * RATE), -25.0),
        "pink_noise": level(pink(3 * RATE, rng), -25.0),
        "hum": hum(3.0, rng),
        "clicks": transients(3.0, rng, typing=False),
        "typing": transients(3.0, rng, typing=True),
        "tones": tones(4.0, rng),
    }


def write_wav(path: Path, x: np.ndarray, rate: int = RATE) -> np.ndarray:
    """Write 16-bit; return the samples as a reader gets them back (int16 / 32768)."""
    pcm = np.round(np.clip(x, -1, 32767 / 32768) * 32768).astype("<i2")
    with wave.open(str(path), "wb") as f:
        f.setnchannels(1)
        f.setsampwidth(2)
        f.setframerate(rate)
        f.writeframes(pcm.tobytes())
    return pcm.astype(np.float32) / 32768.0


def reference(model, audio: np.ndarray) -> dict:
    model.reset_states()
    probs = []
    for i in range(0, len(audio), 512):
        chunk = np.pad(audio[i : i + 512], (0, max(0, 512 - len(audio[i : i + 512]))))
        probs.append(model(torch.from_numpy(chunk), RATE).item())
    tensor = torch.from_numpy(audio)
    segments = {}
    for name, kwargs in ARGUMENTS.items():
        samples = get_speech_timestamps(tensor, model, **kwargs)
        seconds = get_speech_timestamps(tensor, model, return_seconds=True, **kwargs)
        segments[name] = {
            "samples": [[s["start"], s["end"]] for s in samples],
            "seconds": [[s["start"], s["end"]] for s in seconds],
        }
    return {"samples": len(audio), "probabilities": probs, "segments": segments}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    model = load_silero_vad()
    goldens = {"arguments": ARGUMENTS, "recipe": {LONG: RECIPE}, "clips": {}}
    heard = {}
    for name, audio in clips().items():
        heard[name] = write_wav(OUT / f"{name}.wav", audio)
    heard[LONG] = np.concatenate([heard[n] for n in RECIPE])
    assert len(heard[LONG]) >= 60 * RATE, len(heard[LONG]) / RATE
    low = write_wav(OUT / "speech_8k.wav", soxr.resample(heard["speech_snr10"], RATE, 8000, quality="HQ"), 8000)
    up = soxr.resample(low, 8000, RATE, quality="HQ")[: len(low) * 2]
    heard["speech_8k"] = np.pad(up, (0, len(low) * 2 - len(up)))
    for name, audio in heard.items():
        goldens["clips"][name] = reference(model, audio)
        segs = goldens["clips"][name]["segments"]["default"]["seconds"]
        print(
            f"{name:14s} {len(audio) / RATE:6.2f} s  max p {max(goldens['clips'][name]['probabilities']):.3f}  {segs}"
        )
    (OUT / "goldens.json").write_text(json.dumps(goldens, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
