"""The live end-pointer alone: commits and commit latency of LiveSession with the energy rule and with
Silero VAD, replaying tests/fixtures/silero_vad's clips (speech, speech in noise, noise, hum, clicks,
typing, tones, the 62 s clip) and a fan switching on in a quiet room.

    clip -> 30 ms blocks at real-time pace on a fake clock -> LiveSession.on_engine(a free fake engine, vad=...)
    -> commits (and how many were noise: on a clip without speech every commit is), latency = commit
       time - the end of the utterance's speech (the end-pointer's own wait: `pause` + its judging delay;
       a real model adds its final's decode)

    python -m scripts.bench.vad_live [--pause 0.6]
"""

import argparse
import statistics
from typing import Optional

import numpy as np

import mlx_qwen3asr as mq
from mlx_qwen3asr.testing.signals import noise, silence
from scripts.bench.common import ROOT
from scripts.bench.live_replay import BLOCK, FakeClock, real_time

CLIPS = ROOT / "tests" / "fixtures" / "silero_vad"
RECIPE = ["speech_pauses", "white_noise", "speech_snr10", "hum", "clicks", "speech_snr0", "tones", "typing"]
NAMES = ["speech_pauses", "speech_snr10", "speech_snr0", "white_noise", "pink_noise", "hum", "clicks", "typing"]


class FreeEngine:
    """Commits a name for each utterance; costs no time, so latency is the end-pointer's alone."""

    language = ""

    def partial(self, audio: np.ndarray, voiced: Optional[np.ndarray] = None) -> str:
        return f"partial {len(audio)}"

    def final(self, audio: np.ndarray) -> str:
        return f"utterance {len(audio)}"


def replay(audio: np.ndarray, vad, pause: float = 0.6, block: int = BLOCK) -> list:
    """Every event of a real-time replay on the fake clock."""
    clock = FakeClock()
    return real_time(mq.LiveSession.on_engine(FreeEngine(), clock=clock, vad=vad, pause=pause), clock, audio, block)


def clips() -> dict:
    load = lambda name: mq.load_audio(CLIPS / f"{name}.wav")
    audio = {name: load(name) for name in NAMES + ["tones"]}
    audio["long_62s"] = np.concatenate([load(n) for n in RECIPE + ["pink_noise", "speech_pauses"]])
    audio["fan_switching_on"] = np.concatenate([silence(2.0), noise(6.0, -30.0)])
    return audio


def row(events: list) -> str:
    commits = [e for e in events if e.type == "commit"]
    latencies = [e.latency for e in commits if e.latency is not None]
    spans = " ".join(f"{e.start:.1f}-{e.end:.1f}" for e in commits)
    timing = f"{statistics.median(latencies):.3f} / {max(latencies):.3f}" if latencies else "-"
    return f"{len(commits):3d}  {timing:>13s}  {spans}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pause", type=float, default=0.6)
    args = parser.parse_args()
    vad = mq.load_vad()
    print(f"pause {args.pause} s; latency p50 / max in seconds; commit spans in seconds")
    for name, audio in clips().items():
        for label, chosen in (("energy", mq.EnergyVad()), ("silero", vad)):
            print(f"{name:17s} {label:6s} {row(replay(audio, chosen, args.pause))}")


if __name__ == "__main__":
    main()
