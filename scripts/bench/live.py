"""Latency of live dictation: speech with known pauses, replayed at real-time pace through the app's
capture path (FileSource -> queue -> Worker) into the live engine.

    espeak-ng sentences + known pauses -> WAV -> FileSource (real time) -> queue -> Worker
      -> mlx_qwen3asr.LiveSession (events)
    commit latency = commit time - the moment the speaker paused (last audible sample of a sentence)
    first partial  = first tentative text of an utterance - the moment its sentence began

Default model: a random-weight checkpoint the size of Qwen3-ASR-0.6B (written once to
--cache-dir), float32. Random weights never emit end-of-text, so every decode is capped at
--max-new-tokens (default 20: about what the real model emits for one of these sentences).

    python -m scripts.bench.live --quick          # 3 sentences, ~20 s
    python -m scripts.bench.live                  # 8 sentences
    python -m scripts.bench.live --model DIR      # a real or converted model folder
    python -m scripts.bench.live --compare        # finals from scratch vs reusing the partials, interleaved
    python -m scripts.bench.live --final-only     # the final's decode alone: scratch vs a verified partial
    python -m scripts.bench.live --two-pass --refresh 0.3   # partials from SenseVoiceSmall (real-size random)
        vs today's single model: lanes single, two-pass, two-pass, single on the same replay, then the first
        model's refresh cost against the open utterance's length (live_two_pass.py); --quick: tiny models
"""

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Optional

import numpy as np

import mlx_qwen3asr as mq
from mlx_qwen3asr.runtime.blas import ensure_fast_blas
from mlx_qwen3asr.streaming.two_pass import two_pass_engine
from mlx_qwen3asr.streaming.utterances import PARTIALS, make_engine
from mlx_qwen3asr_app.replay import FileSource
from mlx_qwen3asr_app.worker import Worker, make_queue
from scripts.bench.common import CACHE_DIR, random_checkpoint, random_sensevoice
from scripts.bench.live_audio import RATE, SENTENCES, make_session_audio, speech
from scripts.bench.live_two_pass import LENGTHS, print_costs, print_lanes, refresh_costs

DECODED_SECONDS = 0.005  # a partial call this short decoded nothing (the streaming engine: no new whole second)


class TimedEngine:
    """The engine of the live path, with the time of every call recorded."""

    def __init__(self, engine) -> None:
        self.engine, self.finals, self.partials, self.prepares = engine, [], [], []

    @property
    def language(self) -> str:
        return self.engine.language

    def _timed(self, times: list, fn, *args) -> str:
        start = time.perf_counter()
        text = fn(*args)
        times.append(time.perf_counter() - start)
        return text

    def final(self, audio: np.ndarray) -> str:
        return self._timed(self.finals, self.engine.final, audio)

    def prepare(self, audio: np.ndarray):
        """The final made ahead in a pause (None when the engine does not: --finals scratch)."""
        prepare = getattr(self.engine, "prepare", None)
        if prepare is None:
            return None
        start = time.perf_counter()
        text = prepare(audio)
        if text is not None:
            self.prepares.append(time.perf_counter() - start)
        return text

    def partial(self, audio: np.ndarray, voiced: Optional[np.ndarray] = None) -> str:
        return self._timed(self.partials, self.engine.partial, audio, voiced)

    def warm_up(self) -> None:
        self.engine.warm_up()


class Recorder:
    """What the user saw and when: (time, end of the utterance in the session) per commit, and the
    time of every non-empty tentative text."""

    def __init__(self) -> None:
        self.commits: list[tuple[float, float]] = []
        self.partials: list[float] = []

    def commit(self, end: float) -> None:
        self.commits.append((time.monotonic(), end))

    def tentative(self, text: str) -> None:
        if text:
            self.partials.append(time.monotonic())


def replay(model, wav: Path, args, recorder: Recorder, first=None):
    """Replay `wav` at real-time pace through a LiveSession (partials from `first` when given: two-pass);
    (replay start, stats, engine)."""
    options = mq.DecodeOptions(args.language, "", args.max_new_tokens).check(model)
    blocks = make_queue()
    if first is not None:
        engine = TimedEngine(two_pass_engine(model, first, options))
    else:
        engine = TimedEngine(make_engine(model, args.partials, options, reuse=args.finals == "reuse"))
    refresh = {"refresh_every": None if args.partials == "off" else args.refresh}
    live = mq.LiveSession.on_engine(
        engine, pause=args.pause, channels_last=True, **refresh
    )  # FileSource blocks are [n, 1], as the app's
    live.warm_up()

    def on_event(event) -> None:
        if event.type == "commit":
            recorder.commit(event.end)
        elif event.type == "partial":
            recorder.tentative(event.text)

    worker = Worker(blocks, live, on_event)
    source = FileSource(str(wav), blocks)
    worker.start()
    source.start()
    worker.join()
    return source.opened_at, live.stats, engine


def seconds(values: list[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)), 3) if values else None


def report(
    recorder: Recorder,
    replay_start: float,
    speech_starts: list[float],
    pause_starts: list[float],
    stats,
    engine: TimedEngine,
) -> dict:
    latencies, first_partials = [], []
    decoded = [t for t in engine.partials if t >= DECODED_SECONDS]
    for at, end in recorder.commits:
        # the pause that ended this utterance: the last one starting before its end
        before = [i for i, p in enumerate(pause_starts) if p <= end + 1e-6]
        if not before:
            continue
        i = before[-1]
        latencies.append(at - (replay_start + pause_starts[i]))
        spoke = replay_start + speech_starts[i]
        shown = [t for t in recorder.partials if spoke <= t <= at]
        if shown:
            first_partials.append(shown[0] - spoke)
    return {
        "utterances_spoken": len(pause_starts),
        "utterances_committed": len(recorder.commits),
        "latency_p50_s": seconds(latencies, 50),
        "latency_p95_s": seconds(latencies, 95),
        "latency_max_s": seconds(latencies, 100),
        "first_partial_p50_s": seconds(first_partials, 50),
        "first_partial_p95_s": seconds(first_partials, 95),
        "final_decode_p50_s": seconds(engine.finals, 50),
        "final_decode_p95_s": seconds(engine.finals, 95),
        "prepared_finals": len(engine.prepares),
        "prepare_decode_p50_s": seconds(engine.prepares, 50),
        "partial_count": len(engine.partials),
        "partials_per_audio_s": round(len(engine.partials) / stats.audio_seconds, 2),
        "partial_decodes": len(decoded),
        "partial_decode_p50_s": seconds(decoded, 50),
        "partial_decode_p95_s": seconds(decoded, 95),
        "partial_compute_per_audio_s": round(sum(engine.partials) / stats.audio_seconds, 3),
        "rtf": round(stats.rtf, 3),
        "audio_s": round(stats.audio_seconds, 1),
        "compute_s": round(stats.compute_seconds, 1),
    }


def main() -> None:
    ensure_fast_blas()  # the BLAS scripts/env.sh preloads, also when run without it (re-executes once)
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="3 sentences instead of 8")
    p.add_argument("--model", default=None, help="model folder or hub id (default: random 0.6B-size)")
    p.add_argument("--cache-dir", type=Path, default=CACHE_DIR, help="where the random checkpoint is kept")
    p.add_argument("--dtype", default="float32")
    p.add_argument("--max-new-tokens", type=int, default=20)
    p.add_argument("--partials", choices=PARTIALS, default="streaming")
    p.add_argument("--pause", type=float, default=0.6)
    p.add_argument("--refresh", type=float, default=0.5, help="seconds between partials at most (the app's --refresh)")
    p.add_argument(
        "--two-pass",
        action="store_true",
        help="lanes single, two-pass, two-pass, single (partials from --partials-model), then its refresh cost "
        "against the open utterance's length",
    )
    p.add_argument("--partials-model", default=None, help="the first model (default: SenseVoiceSmall-size random)")
    p.add_argument("--language", default=None, help="force a language (default: detected)")
    p.add_argument(
        "--finals",
        choices=["reuse", "scratch"],
        default="reuse",
        help="reuse: finals verify the partials' tokens, keep their encoder windows, and are prepared in "
        "the pause; scratch: each final decoded from scratch when the utterance ends (before issue 29)",
    )
    p.add_argument(
        "--compare",
        action="store_true",
        help="--finals scratch, reuse, reuse, scratch interleaved on the same recording and model; a table",
    )
    p.add_argument(
        "--final-only",
        action="store_true",
        help="time only the final's decode per sentence: scratch vs verifying a partial that heard the same audio",
    )
    args = p.parse_args()
    if args.two_pass and (args.compare or args.final_only):
        p.error("--two-pass is a comparison of its own: drop --compare / --final-only")
    tiny = args.two_pass and args.quick  # the two-pass lane's quick run: tiny models, seconds
    model_path = args.model or random_checkpoint(args.cache_dir, quick=tiny)
    model = mq.load(model_path, dtype=args.dtype)
    if args.final_only:
        final_decodes(model, args)
        return
    first = None
    if args.two_pass:
        first = mq.load(args.partials_model or random_sensevoice(args.cache_dir, quick=tiny), dtype=args.dtype)
    runs = ["scratch", "reuse", "reuse", "scratch"] if args.compare else [args.finals] * (4 if args.two_pass else 1)
    lanes = ["single", "two-pass", "two-pass", "single"] if args.two_pass else ["single"] * len(runs)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        wav, speech_starts, pause_starts = make_session_audio(3 if args.quick else 8, Path(tmp))
        for finals, lane in zip(runs, lanes):
            args.finals = finals
            recorder = Recorder()
            start, stats, engine = replay(model, wav, args, recorder, first if lane == "two-pass" else None)
            result = report(recorder, start, speech_starts, pause_starts, stats, engine)
            result.update(
                lane=lane,
                refresh_setting_s=args.refresh,
                finals=finals,
                model=str(model_path),
                dtype=args.dtype,
                max_new_tokens=args.max_new_tokens,
                partials=f"{args.partials} ({type(engine.engine).__name__})",
                pause_setting_s=args.pause,
                load_average=os.getloadavg()[0],
                cpus=os.cpu_count(),
            )
            print(json.dumps(result, indent=2), flush=True)
            results.append(result)
        if args.two_pass:
            costs = refresh_costs(first, model, args.max_new_tokens, LENGTHS[:3] if args.quick else LENGTHS, Path(tmp))
    if args.compare:
        print_table(results)
    if args.two_pass:
        print_lanes(results)
        print_costs(costs, os.getloadavg()[0])


def final_decodes(model, args) -> None:
    """The final's decode alone, per sentence: from scratch (mq.transcribe) vs verifying the tokens of a
    partial that heard the same audio (StreamingTranscriber.decode_whole after one streaming run over
    it: the draft accepted whole, the encoder and the prompt's keys/values kept): what a final costs
    when the partial was right, as a prepared final in the pause. Interleaved scratch, verify, verify,
    scratch per sentence (after a 0.5 s lead-in)."""
    budget = args.max_new_tokens
    times: dict[str, list[float]] = {"scratch": [], "verify": []}
    accepted = []
    with tempfile.TemporaryDirectory() as tmp:
        clips = [speech(SENTENCES[i], Path(tmp)) for i in range(3 if args.quick else len(SENTENCES))]
    for clip in clips:
        audio = np.concatenate([np.zeros(RATE // 2, np.float32), clip])
        for mode in ("scratch", "verify", "verify", "scratch"):
            if mode == "verify":  # one streaming run over the whole audio: the partial that heard it all
                stream = mq.StreamingTranscriber(
                    model, mq.DecodeOptions(args.language, max_new_tokens=budget), chunk_seconds=len(audio) / RATE
                )
                stream.feed(audio)
            start = time.perf_counter()
            if mode == "verify":
                accepted.append(stream.decode_whole(audio, budget).draft_accepted)
            else:
                mq.transcribe(audio, model, language=args.language, max_new_tokens=budget)
            times[mode].append(time.perf_counter() - start)
            print(f"{mode}: {times[mode][-1]:.2f} s ({len(audio) / RATE:.1f} s of audio)", flush=True)
    result = {
        mode: {"final_decode_p50_s": seconds(t, 50), "final_decode_p95_s": seconds(t, 95), "finals": len(t)}
        for mode, t in times.items()
    }
    result.update(draft_accepted=accepted, max_new_tokens=budget, load_average=os.getloadavg()[0])
    print(json.dumps(result, indent=2))


def print_table(results: list[dict]) -> None:
    """One markdown row per run, in the order they ran."""
    print("| finals | commit latency p50 / p95 | final decode p50 / p95 | prepared (p50) | RTF | load |")
    print("|---|---|---|---|---|---|")
    for r in results:
        print(
            f"| {r['finals']} | {r['latency_p50_s']} / {r['latency_p95_s']} s "
            f"| {r['final_decode_p50_s']} / {r['final_decode_p95_s']} s "
            f"| {r['prepared_finals']} ({r['prepare_decode_p50_s']} s) | {r['rtf']} | {r['load_average']:.1f} |"
        )


if __name__ == "__main__":
    main()
