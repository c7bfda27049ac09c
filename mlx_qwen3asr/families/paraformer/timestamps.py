"""Token times from the CIF fires, as funasr 1.4.16's Paraformer.inference gives them (output_timestamp=True):
funasr/utils/timestamp_tools.py ts_prediction_lfr6_standard on the predictor's alphas and fires, upsample 1.

    alphas, fires [T + 1] (the tail frame included; cif.py) and the N decoded tokens
    -> the function's (us_alphas, us_peaks) are given (fires, alphas): Paraformer.inference passes the
       predictor's fires first and its alphas second, and we do the same, so
    -> fire places: frames whose *alpha* is >= 0.9999 (a sigmoid under 1: in practice none), minus 1.5 frames
       (force_time_shift)
    -> when there are not N + 1 of them (so: always, in practice), the *fires* are scaled to sum to N + 1 and
       integrated again by the sequential loop (cif.fire_loop, threshold 0.9999); its crossings are the places.
       The fires are 1 + a fraction at each CIF fire and the running fraction elsewhere, so the places land
       near, not on, the CIF fires (the golden check compares with funasr's own times, not with the fires)
    -> token i lasts from place i to place i + 1, 60 ms per frame; a span over 12 frames is cut at 12 (the rest
       is silence); a first place after frame 5 leaves silence before; the last token ends at the clip's end,
       or halfway there when more than 5 frames remain
    -> [start_ms, end_ms] per token (int of seconds x 1000, truncated) -> text.sentence joins them into words
"""

import numpy as np

from .cif import fire_loop, total

PEAK = np.float32(1.0 - 1e-4)  # torch compares float32 fires with the Python float rounded to float32
SHIFT = -1.5  # force_time_shift, frames
START_END = 5  # START_END_THRESHOLD, frames
LONGEST = 12  # MAX_TOKEN_DURATION, frames
FRAME = 10.0 * 6 / 1000  # TIME_RATE at upsample_rate 1: one LFR frame, seconds


def fire_places(weights: np.ndarray, peaks: np.ndarray, n_tokens: int) -> np.ndarray:
    """ts_prediction_lfr6_standard's places (shifted by SHIFT) from its (us_alphas, us_peaks) = (weights, peaks)."""
    places = np.nonzero(peaks >= PEAK)[0] + SHIFT
    if len(places) != n_tokens + 1:
        scale = np.float32(total(weights) / np.float32(n_tokens + 1))
        places = np.nonzero(fire_loop(weights.astype(np.float32) / scale, float(PEAK)) >= PEAK)[0] + SHIFT
    return places


def token_times(alphas: np.ndarray, fires: np.ndarray, n_tokens: int) -> list[list[int]]:
    """[start_ms, end_ms] of each of the N tokens (empty when N is 0), in the chunk."""
    if n_tokens == 0:
        return []
    places, frames = fire_places(fires, alphas, n_tokens), len(fires)  # the reference's argument order (above)
    spans, silent = [], []  # silent: whether each span is funasr's <sil>
    if places[0] > START_END:
        spans.append([0.0, places[0] * FRAME])
        silent.append(True)
    for start, end in zip(places[:-1], places[1:]):
        cut = end - start > LONGEST
        spans.append([start * FRAME, (start + LONGEST if cut else end) * FRAME])
        silent.append(False)
        if cut:
            spans.append([(start + LONGEST) * FRAME, end * FRAME])
            silent.append(True)
    if frames - places[-1] > START_END:
        middle = (frames + places[-1]) * 0.5
        spans[-1][1] = middle * FRAME
        spans.append([middle * FRAME, frames * FRAME])
        silent.append(True)
    elif spans:
        spans[-1][1] = frames * FRAME
    return [[int(s * 1000), int(e * 1000)] for (s, e), quiet in zip(spans, silent) if not quiet]
