"""Two-pass live (docs/live.md): what one partial refresh of the first model costs against the open utterance's
length, with the window (streaming/two_pass.py) and without it (the whole utterance re-read each refresh).

    speech (espeak-ng sentences, back to back) -> an utterance that grows by STEP_SECONDS per refresh
      -> TwoPassEngine.partial (window PARTIAL_WINDOW_SECONDS: freezes included) -> seconds per refresh
      -> at each length of LENGTHS: that refresh's cost, transcribe of the whole utterance (no window), and the
         final model's own partial there (its streaming engine, fed the same utterance step by step)

Run by `python -m scripts.bench.live --two-pass` (beside its interleaved replay lanes); --quick: tiny models.
"""

import time
from pathlib import Path

import numpy as np

import mlx_qwen3asr as mq
from mlx_qwen3asr.streaming.two_pass import PARTIAL_WINDOW_SECONDS, TwoPassEngine
from mlx_qwen3asr.streaming.utterances import OfflineEngine, make_engine
from scripts.bench.live_audio import RATE, SENTENCES, speech

LENGTHS = (2, 5, 10, 20, 30)  # seconds of open utterance
STEP_SECONDS = 0.5


def long_speech(seconds: float, folder: Path) -> np.ndarray:
    """The sentences back to back, repeated to `seconds`: one utterance without a pause."""
    once = np.concatenate([speech(text, folder) for text in SENTENCES])
    return np.tile(once, int(np.ceil(seconds * RATE / len(once))))[: int(seconds * RATE)]


def refresh_costs(
    first: mq.Recogniser, final: mq.Recogniser, max_new_tokens: int, lengths: tuple, folder: Path
) -> list[dict]:
    """Per length, interleaved on the same growing utterance: the first model's windowed refresh there, its worst
    windowed refresh up to there (a freeze included), its unwindowed one (transcribe of the whole utterance), and
    the final model's own partial there (the streaming engine, today's default: it decodes once per new second)."""
    audio = long_speech(max(lengths), folder)
    two_pass = TwoPassEngine(OfflineEngine(first), OfflineEngine(first))
    single = make_engine(final, "streaming", mq.DecodeOptions(max_new_tokens=max_new_tokens))
    for engine in (two_pass, single):
        engine.warm_up()
    rows, worst = [], 0.0
    for end in range(int(STEP_SECONDS * RATE), len(audio) + 1, int(STEP_SECONDS * RATE)):
        cost = timed(two_pass.partial, audio[:end])
        worst = max(worst, cost)
        final_cost = timed(single.partial, audio[:end])
        if end / RATE in lengths:
            rows.append(
                {"open_s": end / RATE, "window_refresh_s": round(cost, 3), "worst_refresh_so_far_s": round(worst, 3),
                 "no_window_refresh_s": round(timed(lambda a: mq.transcribe(a, first), audio[:end]), 3),
                 "final_model_partial_s": round(final_cost, 3)}
            )  # fmt: skip
            print(rows[-1], flush=True)
    return rows


def timed(fn, audio: np.ndarray) -> float:
    start = time.perf_counter()
    fn(audio)
    return time.perf_counter() - start


def print_costs(rows: list[dict], load: float) -> None:
    print(f"\nper-refresh cost of the first model against the open utterance (window {PARTIAL_WINDOW_SECONDS} s)")
    print(
        "| open utterance | refresh, windowed | worst windowed so far | refresh, whole utterance "
        "| final model's own partial | load |"
    )
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['open_s']:.0f} s | {r['window_refresh_s']} s | {r['worst_refresh_so_far_s']} s "
            f"| {r['no_window_refresh_s']} s | {r['final_model_partial_s']} s | {load:.1f} |"
        )


def print_lanes(results: list[dict]) -> None:
    """One markdown row per replay lane, in the order they ran."""
    print(
        "\n| lane | partial refresh p50 / p95 | refreshes per s of audio | partial compute per s of audio "
        "| commit latency p50 / p95 | RTF | load |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in results:
        print(
            f"| {r['lane']} | {r['partial_decode_p50_s']} / {r['partial_decode_p95_s']} s "
            f"| {r['partials_per_audio_s']} | {r['partial_compute_per_audio_s']} s "
            f"| {r['latency_p50_s']} / {r['latency_p95_s']} s | {r['rtf']} "
            f"| {r['load_average']:.1f} |"
        )
