"""Fidelity of a converted aligner, in timestamps: does it still put the words where the float source does?

    sample_signal() + FIDELITY_TEXT -> float32 source: timestamp logits [2 x units, classes] -> classes
    -> converted model (its default dtype), same prompt -> classes
    -> classes that agree, the largest time difference of the repaired word times (seconds), and the
       source's smallest top-1 minus top-2 logit (a near-tie flips under any rounding)

The models run one after the other, as in fidelity.py, so the check needs one model's memory at a time.
"""

import gc
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Union

import mlx.core as mx
import numpy as np

from ...audio.features import log_mel_spectrogram
from ...families.aligner.aligner import align_wave, check_aligner
from ...families.aligner.model import prompt_ids
from ...families.aligner.units import split_units
from ..load import load
from .fidelity import sample_signal

FIDELITY_TEXT = "the quick brown fox jumps over the lazy dog while speech turns into timed words"


@dataclass
class AlignmentFidelity:
    reference_classes: list[int]
    converted_classes: list[int]
    max_time_difference: float  # seconds, over all repaired start and end times
    min_reference_margin: float  # the source's smallest top-1 minus top-2 logit

    @property
    def agreeing_classes(self) -> int:
        return sum(a == b for a, b in zip(self.reference_classes, self.converted_classes))


def alignment_trace(aligner, wave: np.ndarray, text: str) -> tuple[np.ndarray, list[float]]:
    """Timestamp logits [2 x units, classes] and the repaired times (start, end, ...) in seconds."""
    check_aligner(aligner)
    features = aligner.encode(log_mel_spectrogram(wave))
    units = split_units(text)
    ids = prompt_ids([aligner.tokenizer.encode(u) for u in units], features.shape[0], aligner.args)
    logits = np.array(aligner.timestamp_logits(mx.array(ids), features).astype(mx.float32))
    times = [t for word in align_wave(aligner, wave, text, None) for t in (word.start, word.end)]
    return logits, times


def check_alignment_fidelity(
    source: Union[str, Path],
    converted: Union[str, Path],
    wave: Optional[np.ndarray] = None,
    text: str = FIDELITY_TEXT,
    reference_dtype: str = "float32",
) -> AlignmentFidelity:
    """Run the float source aligner, then the converted one, on the same audio and text."""
    wave = sample_signal() if wave is None else wave
    traces = []
    for folder, dtype in ((source, reference_dtype), (converted, None)):
        model = load(folder, dtype=dtype)
        traces.append(alignment_trace(model, wave, text))
        del model
        gc.collect()
        mx.clear_cache()
    (ref_logits, ref_times), (conv_logits, conv_times) = traces
    top2 = np.sort(ref_logits, axis=-1)[:, -2:]
    return AlignmentFidelity(
        ref_logits.argmax(-1).tolist(),
        conv_logits.argmax(-1).tolist(),
        float(np.max(np.abs(np.subtract(ref_times, conv_times)))),
        float((top2[:, 1] - top2[:, 0]).min()),
    )


def alignment_fidelity_lines(fidelity: AlignmentFidelity) -> list[str]:
    n = len(fidelity.reference_classes)
    return [
        f"fidelity   timestamp classes: {fidelity.agreeing_classes}/{n} agree with the float source; "
        f"largest word-time difference {fidelity.max_time_difference:.3f} s "
        f"(source's smallest top-2 margin {fidelity.min_reference_margin:.3f})"
    ]
