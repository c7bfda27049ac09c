"""SenseVoiceSmall's front end: funasr's WavFrontend with dither 0, on the shared Kaldi fbank + LFR.

    wave [N] float32 16 kHz x 32768 (funasr's `upsacle_samples`: the fbank of 16-bit sample values)
    -> Kaldi fbank [F, 80] and LFR 7/6 [T = ceil(F / 6), 560] (audio/fbank.py, as Fun-ASR-Nano's)
    -> CMVN of the release's am.mvn: (x + shift) * scale, per column                     [T, 560]
The scale only moves the log-mel by 2 ln 32768 = 20.79 where the energy is above the log floor; digital
silence stays at the floor (ln float32 eps = -15.94) either way, so the scale is not a constant offset.

am.mvn is Kaldi nnet1 text: an <AddShift> and a <Rescale> component, each followed by a line
"<LearnRateCoef> 0 [ v1 ... v560 ]" (funasr's load_cmvn reads the values between the brackets).
"""

from pathlib import Path

import numpy as np

from ...audio.fbank import fbank, stack_lfr

SAMPLE_SCALE = np.float32(1 << 15)


def lfr_features(wave: np.ndarray) -> np.ndarray:
    """Waveform (16 kHz, unit scale) -> LFR fbank features [T, 560] float32, before CMVN."""
    return stack_lfr(fbank(np.asarray(wave, np.float32) * SAMPLE_SCALE))


def read_cmvn(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """(shift, scale) float32 from am.mvn; ValueError naming the file when it holds neither."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    found = {}
    for name, line in zip(lines, lines[1:]):
        words, values = name.split(), line.split()
        if words and words[0] in ("<AddShift>", "<Rescale>") and values[:1] == ["<LearnRateCoef>"]:
            found[words[0]] = np.array(values[3:-1], dtype=np.float32)
    if set(found) != {"<AddShift>", "<Rescale>"} or found["<AddShift>"].shape != found["<Rescale>"].shape:
        raise ValueError(f"{path} has no <AddShift> and <Rescale> of one size: re-download the release's am.mvn")
    return found["<AddShift>"], found["<Rescale>"]
