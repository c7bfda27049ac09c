"""Regenerate the diarizer goldens from pyannote.audio 4.0.7 on CPU torch. DEV ONLY.

PYANNOTE_METRICS_ENABLED=0 /work/ref-venvs/pyannote/bin/python scripts/make_diarizer_goldens.py [NAME ...]
(set-up: tests/fixtures/diarizer/README.md; torch never enters the package or the tests)

random_diarizer.write_random_diarizer(folder, seed 0) -> a random-weight folder in the official layout,
written without torch (the script first checks that torch.load reads both checkpoints to the same tensors)
-> pyannote.audio.Pipeline.from_pretrained(folder) on each input of testing/diarizer_inputs.py
-> tests/fixtures/diarizer/<name>.npz:
     n_samples; classes [C, 589] uint8 (the powerset argmax of the model's log-probabilities), margin
     [C, 589] float16 (best minus second-best log-probability); segmentation (packbits of
     get_segmentations' hard [C, 589, 3]); count [F] uint8; embeddings [C, 3, 256] float32;
     per setting s in SETTINGS: s_clusters [C, 3] int8 (hard clusters, -2 for inactive speakers), s_starts,
     s_ends float64 and s_labels str (the turns of speaker_diarization, in pyannote's order)
"""

import sys
from pathlib import Path

import numpy as np
import torch
from pyannote.audio import Pipeline

from mlx_qwen3asr.families.pyannote.checkpoint import read_torch_checkpoint
from mlx_qwen3asr.testing.diarizer_inputs import NAMES, diarizer_input
from mlx_qwen3asr.testing.random_diarizer import write_random_diarizer

ROOT = Path(__file__).resolve().parents[1]
AUDIO_DIR = ROOT / "tests/fixtures/audio"
OUT_DIR = ROOT / "tests/fixtures/diarizer"
FOLDER = Path("/tmp/mlx-qwen3asr-diarizer-golden")
SETTINGS = {"default": {}, "two": {"num_speakers": 2}}
WINDOW, STEP = 160000, 16000


def check_checkpoints(folder: Path) -> None:
    """torch.load and our torch-free reader give the same tensors."""
    for part in ("segmentation", "embedding"):
        path = folder / part / "pytorch_model.bin"
        ours = read_torch_checkpoint(path)["state_dict"]
        theirs = torch.load(path, weights_only=False)["state_dict"]
        assert list(ours) == list(theirs), part
        for name, tensor in theirs.items():
            assert np.array_equal(ours[name], tensor.numpy()), (part, name)


def check_kmeans() -> None:
    """kmeans.py gives scikit-learn's KMeans(k, n_init=3, random_state=42) labels on random problems."""
    from sklearn.cluster import KMeans

    from mlx_qwen3asr.families.pyannote.kmeans import kmeans_labels

    for seed in range(60):
        rng = np.random.default_rng(seed)
        n, k = int(rng.integers(5, 80)), int(rng.integers(2, 6))
        centres = rng.normal(size=(k + 1, 16)) * rng.uniform(0.2, 2)
        x = centres[rng.integers(0, k + 1, n)] + rng.normal(size=(n, 16))
        x /= np.linalg.norm(x, axis=1, keepdims=True)
        expected = KMeans(n_clusters=k, n_init=3, random_state=42).fit_predict(x)
        assert np.array_equal(kmeans_labels(x, k), expected), f"k-means differs from scikit-learn (seed {seed})"


def windows(wave: np.ndarray) -> np.ndarray:
    """The pipeline's 10 s windows every 1 s, the last one zero-padded (pyannote's Inference.slide)."""
    n = len(wave)
    full = 1 + (n - WINDOW) // STEP if n >= WINDOW else 0
    chunks = [wave[i * STEP : i * STEP + WINDOW] for i in range(full)]
    if n < WINDOW or (n - WINDOW) % STEP:
        last = wave[full * STEP :]
        chunks.append(np.pad(last, (0, WINDOW - len(last))))
    return np.stack(chunks)


def model_outputs(pipe, wave: np.ndarray) -> np.ndarray:
    model = pipe._segmentation.model
    with torch.inference_mode():
        return np.concatenate([model(torch.from_numpy(b)[:, None]).numpy() for b in np.array_split(
            windows(wave), max(1, len(windows(wave)) // 16))])  # fmt: skip


def run(pipe, wave: np.ndarray, settings: dict) -> dict:
    audio = {"waveform": torch.from_numpy(wave)[None], "sample_rate": 16000}
    captured = {}

    def hook(step, artifact, file=None, **_):
        if artifact is not None and step in ("segmentation", "speaker_counting", "embeddings"):
            captured[step] = np.array(artifact if isinstance(artifact, np.ndarray) else artifact.data)

    original = pipe.reconstruct

    def reconstruct(segmentations, hard_clusters, count):
        captured.setdefault("clusters", hard_clusters.copy())
        return original(segmentations, hard_clusters, count)

    pipe.reconstruct = reconstruct
    try:
        out = pipe(audio, hook=hook, **settings)
    finally:
        del pipe.reconstruct
    turns = list(out.speaker_diarization.itertracks(yield_label=True))
    captured["starts"] = np.array([t[0].start for t in turns], np.float64)
    captured["ends"] = np.array([t[0].end for t in turns], np.float64)
    captured["labels"] = np.array([t[2] for t in turns], dtype=str)
    return captured


def cache_stages(pipe) -> None:
    """The second setting reuses the first one's segmentation and embeddings (the same computation)."""
    for method in ("get_segmentations", "get_embeddings"):
        original, memo = getattr(type(pipe), method), []

        def cached(*args, _original=original, _memo=memo, **kwargs):
            if not _memo:
                _memo.append(_original(pipe, *args, **kwargs))
            return _memo[0]

        setattr(pipe, method, cached)


def golden(pipe, name: str) -> dict:
    wave = diarizer_input(AUDIO_DIR, name)
    cache_stages(pipe)
    logp = model_outputs(pipe, wave)
    top = np.sort(logp, axis=-1)
    out = {"n_samples": np.array(len(wave)), "classes": logp.argmax(-1).astype(np.uint8)}
    out["margin"] = (top[..., -1] - top[..., -2]).astype(np.float16)
    for setting, kwargs in SETTINGS.items():
        result = run(pipe, wave, kwargs)
        segmentation = result["segmentation"]
        mapping = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [1, 0, 1], [0, 1, 1]])
        assert np.array_equal(segmentation, mapping[out["classes"]]), "the windows differ from pyannote's"
        out["segmentation"] = np.packbits(segmentation.astype(np.uint8).ravel())
        out["count"] = result["speaker_counting"][:, 0].astype(np.uint8)
        out["embeddings"] = result["embeddings"].astype(np.float32)
        out[f"{setting}_clusters"] = result["clusters"].astype(np.int8)
        for key in ("starts", "ends", "labels"):
            out[f"{setting}_{key}"] = result[key]
        print(f"{name} {setting}: {len(result['labels'])} turns, speakers {sorted(set(result['labels']))}")
    return out


def main() -> None:
    torch.set_num_threads(2)
    write_random_diarizer(FOLDER, seed=0)
    check_checkpoints(FOLDER)
    check_kmeans()
    pipe = Pipeline.from_pretrained(FOLDER)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    for name in sys.argv[1:] or NAMES:
        np.savez_compressed(OUT_DIR / f"{name}.npz", **golden(pipe, name))
        print(f"wrote {OUT_DIR / name}.npz")


if __name__ == "__main__":
    main()
