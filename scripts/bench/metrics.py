"""Text accuracy metrics for the benchmarks (streamed against offline text, or either against a reference)."""

import numpy as np


def character_error_rate(reference: str, hypothesis: str) -> float:
    """Character edit distance / reference length, after collapsing runs of whitespace."""
    ref, hyp = " ".join(reference.split()), " ".join(hypothesis.split())
    if not ref:
        return float(bool(hyp))
    hyp_codes = np.array([ord(c) for c in hyp], dtype=np.int64)
    index = np.arange(len(hyp) + 1)
    row = index.copy()
    for i, char in enumerate(ref, 1):
        substitute = row[:-1] + (hyp_codes != ord(char))
        best = np.concatenate([[i], np.minimum(row[1:] + 1, substitute)])
        row = np.minimum.accumulate(best - index) + index  # insertions: row[j] <= row[j - 1] + 1
    return float(row[-1]) / len(ref)
