"""Clustering the (chunk, local speaker) embeddings into global speakers: pyannote's VBxClustering.

    embeddings [C, 3, 256], segmentation [C, 589, 3]
    -> kept: pairs with >= 0.2 x 589 frames where they speak alone, and no NaN          [N, 256]
    -> AHC: centroid linkage of the l2-normalised kept embeddings, cut at `threshold`
    -> VBx on their PLDA features from the AHC start; speakers with prior > 1e-7 kept;
       centroids = responsibility-weighted means of the raw embeddings                  [K, 256]
    -> outside [min_speakers, max_speakers] (or != num_speakers): k-means (kmeans.py) on the normalised
       embeddings into the nearest allowed count, centroids = plain means
    -> every pair scored 2 - cosine distance to every centroid; per chunk a one-to-one assignment
       (scipy's linear_sum_assignment, inactive speakers scored below everything) unless k-means ran,
       then the best centroid                                                             [C, 3] cluster
Fewer than 2 kept pairs: one cluster.
"""

import math

import numpy as np
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.optimize import linear_sum_assignment
from scipy.spatial.distance import cdist

from .config import ClusteringParams
from .kmeans import kmeans_labels
from .vbx import Plda, l2_normalise, vbx

MIN_ACTIVE_RATIO = 0.2
KEEP_PRIOR = 1e-7


def kept_pairs(embeddings: np.ndarray, segmentation: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(chunk, speaker) indices of the embeddings clustering learns from."""
    alone = segmentation.sum(axis=2, keepdims=True) == 1
    clean = np.sum(segmentation * alone, axis=1)
    active = clean >= MIN_ACTIVE_RATIO * segmentation.shape[1]
    valid = ~np.any(np.isnan(embeddings), axis=2)
    return np.where(active & valid)


def _centroids(train: np.ndarray, plda: Plda, params: ClusteringParams) -> np.ndarray:
    normed = l2_normalise(train)
    ahc = fcluster(linkage(normed, method="centroid", metric="euclidean"), params.threshold, criterion="distance")
    _, ahc = np.unique(ahc - 1, return_inverse=True)
    q, pi = vbx(plda(train), plda.phi, ahc, params.Fa, params.Fb)
    weights = q[:, pi > KEEP_PRIOR]
    return weights.T @ train / weights.sum(axis=0, keepdims=True).T


def _bounded(count: int, num: int | None, low: int, high: float) -> int | None:
    """The number of clusters k-means must make instead of VBx's `count`, or None."""
    if count < low:
        num = low
    elif count > high:
        num = high
    return num if num and num != count else None


def cluster(
    embeddings: np.ndarray,
    segmentation: np.ndarray,
    plda: Plda,
    params: ClusteringParams,
    num: int | None,
    low: int,
    high: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Hard clusters [C, 3] (int) and centroids [K, 256] (float64)."""
    chunks, speakers, dim = embeddings.shape
    chunk_idx, speaker_idx = kept_pairs(embeddings, segmentation)
    train = embeddings[chunk_idx, speaker_idx].astype(np.float64)
    if len(train) < 2:  # one cluster (pyannote's centroid is then the mean of the 0 or 1 kept embeddings)
        return np.zeros((chunks, speakers), np.int8), train[:1] if len(train) else np.zeros((1, dim))
    centroids = _centroids(train, plda, params)
    constrained = True
    k = _bounded(len(centroids), num, low, high)
    if k is not None:
        constrained = False
        labels = kmeans_labels(l2_normalise(train), int(k))
        centroids = np.vstack([np.mean(train[labels == j], axis=0) for j in range(int(k))])
    scores = 2 - cdist(embeddings.reshape(-1, dim).astype(np.float64), centroids, metric="cosine")
    scores = scores.reshape(chunks, speakers, -1)
    if not constrained:
        return np.argmax(scores, axis=2), centroids
    scores[segmentation.sum(axis=1) == 0] = scores.min() - 1.0
    scores = np.nan_to_num(scores, nan=np.nanmin(scores))
    hard = np.full((chunks, speakers), -2, np.int8)
    for c, cost in enumerate(scores):
        rows, cols = linear_sum_assignment(cost, maximize=True)
        hard[c, rows] = cols
    return hard, centroids


def speaker_bounds(
    num_speakers: int | None = None, min_speakers: int | None = None, max_speakers: int | None = None
) -> tuple[int | None, int, float]:
    """pyannote's set_num_speakers: num_speakers overrides the bounds; equal bounds mean a known number."""
    num = num_speakers
    low, high = num or min_speakers or 1, num or max_speakers or math.inf
    if low > high:
        raise ValueError(f"min_speakers ({low}) must not exceed max_speakers ({high}): swap or drop one of them")
    return (low if low == high else num), low, high
