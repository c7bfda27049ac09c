"""Aligner classes -> monotonic times, exactly as the official Qwen3-ForcedAligner (qwen-asr 0.0.6).

    classes [2n] (argmax at each <timestamp>: start, end, start, end, ...)
      -> x timestamp_segment_time (80 ms)                          times_ms [2n]
      -> longest non-decreasing subsequence = the "normal" times (one sequence for all starts and ends)
      -> each run of anomalies: <= 2 long -> copy the nearer normal neighbour (a tie goes left);
         longer -> linear interpolation between the neighbours (one neighbour -> its value)
      -> int() (truncation)                                          repaired ms [2n]
      -> seconds = round(ms / 1000, 3)

Ties matter: among equally long subsequences the official dynamic programme keeps, for each index, the
FIRST predecessor of maximal length, and ends at the FIRST index of maximal length. `normal_indices`
reproduces that choice with a vectorised inner loop (O(n^2) work, n = 2 x units).
"""

from collections.abc import Sequence

import numpy as np


def class_times_ms(classes: Sequence[int], segment_time_ms: float) -> list[float]:
    """Classes -> ms. The official float32 product is exact (< 2^24) for all 5000 classes, like this one."""
    return [int(c) * float(segment_time_ms) for c in classes]


def normal_indices(times: Sequence[float]) -> list[int]:
    """Indices of the official longest non-decreasing subsequence (ties as above)."""
    values = np.asarray(times, dtype=np.float64)
    n = len(values)
    length = np.ones(n, dtype=np.int64)
    parent = np.full(n, -1, dtype=np.int64)
    for i in range(1, n):
        # Predecessors that may precede i; invalid ones score 0 so argmax finds the first longest valid one.
        candidates = np.where(values[:i] <= values[i], length[:i], 0)
        best = int(np.argmax(candidates))
        if candidates[best] > 0:
            length[i], parent[i] = candidates[best] + 1, best
    chain = [int(np.argmax(length))]
    while parent[chain[-1]] != -1:
        chain.append(int(parent[chain[-1]]))
    return chain[::-1]


def fill_run(result: list[float], start: int, end: int, left, right) -> None:
    """Replace result[start:end], a maximal run of anomalies between normal values left and right
    (None at an edge of the sequence)."""
    count = end - start
    for k in range(start, end):
        if left is None or right is None:
            result[k] = right if left is None else left
        elif count <= 2:
            result[k] = left if (k - (start - 1)) <= (end - k) else right
        else:
            result[k] = left + (right - left) / (count + 1) * (k - start + 1)


def repair_times_ms(times: Sequence[float]) -> list[int]:
    """Official `fix_timestamp`: any sequence of times (ms) -> a non-decreasing one, as int ms."""
    n = len(times)
    if n == 0:
        return []
    is_normal = [False] * n
    for index in normal_indices(times):
        is_normal[index] = True
    result = list(times)
    i = 0
    while i < n:
        if is_normal[i]:
            i += 1
            continue
        j = i
        while j < n and not is_normal[j]:
            j += 1
        left = result[i - 1] if i > 0 else None  # runs are maximal: i - 1 and j are normal
        right = result[j] if j < n else None
        fill_run(result, i, j, left, right)
        i = j
    return [int(value) for value in result]


def ms_to_seconds(ms: float) -> float:
    return round(ms / 1000.0, 3)
