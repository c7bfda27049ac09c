"""The speaker-diarization-community-1 pipeline: audio -> who spoke when.

folder (config.yaml naming pyannote.audio.pipelines.SpeakerDiarization, segmentation/ and embedding/
pytorch_model.bin, plda/*.npz) -> Diarizer (PyanNet, ResNet34, Plda, clustering params)
audio [n] 16 kHz
-> Diarizer.segmentation: windows (frames.py) -> PyanNet -> hard powerset            [C, 589, 3]
-> frames.speaker_count                                                              [F]
-> Diarizer.embeddings: per window one fbank + ResNet34 pass, pooled under each local speaker's frames
   (only frames where fewer than 2 speak, unless that leaves <= 2 frames)           [C, 3, 256]
-> clustering.cluster (AHC + VBx, bounds by k-means)                                [C, 3]
-> frames.reconstruct (count capped at max_speakers) -> frames.turns -> Diarization (turns.py)
"""

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Union

import mlx.core as mx
import numpy as np

from ...audio import AudioInput, prepare_audio
from ...runtime.two_streams import batch_halves, two_streams
from . import frames
from .checkpoint import state_dict
from .config import ClusteringParams, read_pipeline_config
from .embedding import ResNet34, crop_features, embedding_weights
from .segmentation import PyanNet, segmentation_weights
from .turns import Diarization, named_turns

if TYPE_CHECKING:
    from .vbx import Plda

# Windows per model call, half of them on each of the CPU's two streams (two_streams.batch_halves): the
# LSTM's many small operations and the ResNet's elementwise ones run on both cores. The embedding batch is
# one window a stream: the activations of a larger one fall out of the cache (~1.3x slower a window).
SEGMENTATION_BATCH, EMBEDDING_BATCH = 32, 2
# pyannote's min_num_samples: the shortest input the embedding model accepts (400 samples, found by
# bisection in pyannote) -> masks of at most ceil(589 x 400 / 160000) = 2 frames fall back to the full mask
MIN_MASK_FRAMES = math.ceil(frames.FRAMES_PER_WINDOW * 400 / frames.WINDOW)


@dataclass
class Diarizer:
    """pyannote's speaker-diarization-community-1 in MLX (from `mq.load(folder)`)."""

    segmenter: PyanNet
    embedder: ResNet34
    plda: "Plda"
    clustering: ClusteringParams
    exclude_overlap: bool = True
    path: Optional[Path] = None
    task = "diarize"  # what it is for (families.require_task); a class attribute, not a field

    @classmethod
    def from_folder(cls, folder: Union[str, Path]) -> "Diarizer":
        folder = Path(folder)
        config = read_pipeline_config(folder)
        segmenter, embedder = PyanNet(), ResNet34()
        segmenter.load_weights(list(segmentation_weights(state_dict(config.segmentation)).items()))
        embedder.load_weights(list(embedding_weights(state_dict(config.embedding)).items()))
        mx.eval(segmenter.parameters(), embedder.parameters())
        from .vbx import Plda

        plda = Plda.from_folder(config.plda)
        return cls(segmenter, embedder, plda, config.clustering, config.exclude_overlap, folder)

    def diarize(
        self, audio: AudioInput, on_progress: Optional[Callable[[float], None]] = None, **speakers: Optional[int]
    ) -> "Diarization":
        """diarize(audio, self, ...): what the engine asks a diarizer (speakers.SpeakerDiarizer)."""
        return diarize(audio, self, **speakers, on_progress=on_progress)

    def segmentation(self, audio: AudioInput) -> np.ndarray:
        """Hard local speaker activity [chunks, 589, 3] (0/1 float32), as pyannote's get_segmentations."""
        return frames.powerset(self.log_probs(prepare_audio(audio)))

    def log_probs(self, wave: np.ndarray) -> np.ndarray:
        """PyanNet's powerset log-probabilities of every window [chunks, 589, 7]."""
        starts = frames.window_starts(len(wave))
        out = []
        for i in range(0, len(starts), SEGMENTATION_BATCH):
            batch = np.stack([frames.window(wave, s) for s in starts[i : i + SEGMENTATION_BATCH]])
            with two_streams():
                out.append(np.array(batch_halves(self.segmenter, mx.array(batch))))
        return np.concatenate(out)

    def embeddings(
        self,
        audio: AudioInput,
        segmentation: Optional[np.ndarray] = None,
        on_progress: Optional[Callable[[float], None]] = None,
    ) -> np.ndarray:
        """One embedding per window and local speaker [chunks, 3, 256] (float32). on_progress(seconds): after
        each batch, its share of the audio's seconds (the shares add up to the whole)."""
        wave = prepare_audio(audio)
        segmentation = self.segmentation(wave) if segmentation is None else segmentation
        masks = self.masks(segmentation)
        starts = frames.window_starts(len(wave))
        out = []
        for i in range(0, len(starts), EMBEDDING_BATCH):
            features = np.stack([crop_features(frames.window(wave, s)) for s in starts[i : i + EMBEDDING_BATCH]])
            batch_masks = mx.array(masks[i : i + EMBEDDING_BATCH])
            with two_streams():
                out.append(np.array(batch_halves(self.embedder, mx.array(features), batch_masks)))
            if on_progress is not None:
                on_progress(len(features) / len(starts) * len(wave) / frames.SAMPLE_RATE)
        return np.concatenate(out)

    def masks(self, segmentation: np.ndarray) -> np.ndarray:
        """The pooling weights of each local speaker [chunks, 3, 589]."""
        full = segmentation.transpose(0, 2, 1)
        if not self.exclude_overlap:
            return full
        clean = full * (segmentation.sum(axis=2) < 2)[:, None, :]
        enough = clean.sum(axis=2, keepdims=True) > MIN_MASK_FRAMES
        return np.where(enough, clean, full).astype(np.float32)


def diarize(
    audio: AudioInput,
    diarizer: Diarizer,
    num_speakers: Optional[int] = None,
    min_speakers: Optional[int] = None,
    max_speakers: Optional[int] = None,
    on_progress: Optional[Callable[[float], None]] = None,
) -> Diarization:
    """Who spoke when: turns labelled SPEAKER_00, SPEAKER_01... as pyannote.audio numbers them.
    on_progress(seconds): seconds of audio done, as the embeddings (most of the work) advance."""
    from .clustering import speaker_bounds

    bounds = speaker_bounds(num_speakers, min_speakers, max_speakers)
    wave = prepare_audio(audio)
    segmentation = diarizer.segmentation(wave)
    if frames.speaker_count(segmentation).max() == 0:
        return Diarization([])  # nobody ever speaks: no embeddings needed
    embeddings = diarizer.embeddings(wave, segmentation, on_progress)
    return speaker_turns(segmentation, embeddings, diarizer.plda, diarizer.clustering, *bounds)


def speaker_turns(
    segmentation: np.ndarray,
    embeddings: np.ndarray,
    plda: "Plda",
    params: ClusteringParams,
    num: Optional[int] = None,
    low: int = 1,
    high: float = math.inf,
) -> Diarization:
    """The numpy half of the pipeline: local activity [C, 589, 3] + embeddings [C, 3, 256] -> turns."""
    from .clustering import cluster  # scipy

    count = frames.speaker_count(segmentation)
    if count.max() == 0:
        return Diarization([])
    clusters, _ = cluster(embeddings, segmentation, plda, params, num, low, high)
    clusters = np.asarray(clusters).copy()
    found = int(clusters.max()) + 1
    if not low <= found <= high:  # too few kept embeddings to make `low` clusters, as pyannote warns
        warnings.warn(
            f"found {found} speaker(s), outside [{low}, {high}]: the audio may be too short for that many", stacklevel=2
        )
    clusters[segmentation.sum(axis=1) == 0] = -2  # speakers silent in their window
    capped = np.minimum(count, high).astype(np.int64)
    return named_turns(frames.turns(frames.reconstruct(segmentation, clusters, capped)))
