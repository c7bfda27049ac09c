"""Windows, powerset, speaker count and turns: pyannote's frame bookkeeping, exactly.

    audio [n] -> windows(): 10 s windows every 1 s while they fit, then one more zero-padded window when
       the audio is shorter than 10 s or (n - 160000) % 16000 != 0                          [C, 160000]
    log-probabilities [C, 589, 7] -> powerset(): hard argmax (the first maximum on ties) -> the subset's
       local speakers                                                                   [C, 589, 3] 0/1
    -> speaker_count(): per window the active speakers, overlap-added on the global frame grid (window c
       starts at frame rint(c / step)), averaged over the windows covering each frame, np.rint (half to
       even)                                                                               [F] uint8
    -> reconstruct(): per window and cluster the max over its local speakers, summed on the grid; per
       frame the `count` clusters with the largest sums (np.argsort(-x): ties keep column order) [F, K]
    -> turns(): per cluster, runs of 1s -> [middle of the first frame, middle of the first frame after
       the run] (a run reaching the end stops at the last frame's middle)

The global grid is the model's receptive field: frames of 991 samples every 270 (frame i covers
[i * 0.016875, i * 0.016875 + 0.0619375] s); the same float64 expressions as pyannote are used, so
frame indices and times come out bit for bit.
"""

import numpy as np

SAMPLE_RATE = 16000
WINDOW, STEP = 160000, 16000  # 10 s windows, step 0.1 x 10 s
CHUNK_SECONDS, CHUNK_STEP = WINDOW / SAMPLE_RATE, STEP / SAMPLE_RATE
FRAME_DURATION, FRAME_STEP = 991 / SAMPLE_RATE, 270 / SAMPLE_RATE  # the segmentation model's receptive field
FRAMES_PER_WINDOW = 589
# powerset class -> active local speakers (3 speakers, at most 2 at once)
POWERSET = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [1, 0, 1], [0, 1, 1]], np.float32)


def window_starts(n_samples: int) -> np.ndarray:
    """Start sample of every window of an n-sample input."""
    full = 1 + (n_samples - WINDOW) // STEP if n_samples >= WINDOW else 0
    extra = n_samples < WINDOW or (n_samples - WINDOW) % STEP > 0
    return np.arange(full + int(extra)) * STEP


def window(audio: np.ndarray, start: int) -> np.ndarray:
    """The 10 s window starting at sample `start`, zero-padded past the end."""
    piece = audio[start : start + WINDOW]
    return np.pad(piece, (0, WINDOW - len(piece))) if len(piece) < WINDOW else piece


def powerset(log_probs: np.ndarray) -> np.ndarray:
    """Powerset scores [..., 7] -> hard local speaker activity [..., 3] (float32 0/1)."""
    return POWERSET[np.argmax(log_probs, axis=-1)]


def _closest_frame(t: float) -> int:
    return int(np.rint((t - 0.0 - 0.5 * FRAME_DURATION) / FRAME_STEP))


def start_frames(num_chunks: int) -> np.ndarray:
    """Global frame at which each window's 589 frames start."""
    return np.array([_closest_frame(c * CHUNK_STEP + 0.5 * FRAME_DURATION) for c in range(num_chunks)])


def num_frames(num_chunks: int) -> int:
    return _closest_frame(CHUNK_SECONDS + (num_chunks - 1) * CHUNK_STEP + 0.5 * FRAME_DURATION) + 1


def _overlap_add(values: np.ndarray, present: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sum [C, 589, K] values (where present) and the number of windows covering each frame: [F, K] x 2."""
    chunks, frames, k = values.shape
    total = np.zeros((num_frames(chunks), k), np.float32)
    covered = np.zeros_like(total)
    for c, start in enumerate(start_frames(chunks)):
        total[start : start + frames] += values[c] * present[c]
        covered[start : start + frames] += present[c]
    return total, covered


def speaker_count(segmentation: np.ndarray) -> np.ndarray:
    """Hard segmentation [C, 589, 3] -> number of speakers active at each global frame [F] (uint8)."""
    active = segmentation.sum(axis=-1, keepdims=True)
    total, covered = _overlap_add(active, np.ones_like(active))
    return np.rint(total / np.maximum(covered, np.float32(1e-12)))[:, 0].astype(np.uint8)


def reconstruct(segmentation: np.ndarray, clusters: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Local activity [C, 589, 3] + cluster of each local speaker [C, 3] (-2: none) -> global [F, K] 0/1."""
    chunks, frames, _ = segmentation.shape
    k = int(clusters.max()) + 1
    per_cluster = np.zeros((chunks, frames, k), np.float32)
    present = np.zeros((chunks, 1, k), np.float32)
    for c in range(chunks):
        for j in np.unique(clusters[c]):
            if j >= 0:
                per_cluster[c, :, j] = segmentation[c][:, clusters[c] == j].max(axis=1)
                present[c, 0, j] = 1
    activations, _ = _overlap_add(per_cluster, np.broadcast_to(present, per_cluster.shape))
    if activations.shape[1] < count.max():  # more speakers at once than clusters: padded, as pyannote does
        activations = np.pad(activations, ((0, 0), (0, int(count.max()) - activations.shape[1])))
    order = np.argsort(-activations, axis=-1)
    binary = np.zeros_like(activations)
    for t in range(len(binary)):
        binary[t, order[t, : count[t]]] = 1.0
    return binary


def frame_middle(i: int) -> float:
    start = 0.0 + i * FRAME_STEP
    return 0.5 * (start + (start + FRAME_DURATION))


def turns(binary: np.ndarray) -> list[tuple[float, float, int]]:
    """Global activity [F, K] -> (start, end, cluster), ordered by (start, end, cluster) as pyannote's."""
    out = []
    middles = [frame_middle(i) for i in range(len(binary))]
    for k in range(binary.shape[1]):
        active = binary[:, k] > 0.5
        edges = np.flatnonzero(np.diff(active.astype(np.int8)))
        starts = [0] if active[0] else []
        starts += [e + 1 for e in edges if not active[e]]
        ends = [e + 1 for e in edges if active[e]]
        if active[-1]:
            ends.append(len(binary) - 1)
        out += [(middles[s], middles[e], k) for s, e in zip(starts, ends) if e > s]  # empty ones are dropped
    return sorted(out)
