"""k-means as scikit-learn's KMeans(n_clusters, n_init=3, random_state=42) computes it, in numpy.

pyannote falls back to it when VBx finds a number of speakers outside the requested bounds. Reproducing its
labels needs the same random stream and the same steps:
    X minus its column mean; tol = 1e-4 x mean column variance; one RandomState(42) shared by the 3 runs
    -> each run: k-means++ (first centre drawn with RandomState.choice; then 2 + floor(ln k) candidates per
       centre, drawn by inverse-CDF of the squared distances, the one lowering the potential most kept)
    -> Lloyd (at most 300 iterations; stop when the labels no longer change or the centres move by <= tol
       in total squared distance; then one more assignment if stopped on tol)
    -> the run with the lowest inertia (a later run wins only when strictly lower and a different partition)
scripts/make_diarizer_goldens.py checks the labels against scikit-learn 1.9.1 on 60 random problems (all
equal). Not reproduced: scikit-learn's relocation of a cluster that ends up empty (kept in place here).
"""

import numpy as np

N_INIT, SEED, MAX_ITER, TOL = 3, 42, 300, 1e-4


def _squared_distances(x: np.ndarray, centres: np.ndarray, x_norms: np.ndarray) -> np.ndarray:
    d = -2 * (centres @ x.T) + np.sum(centres**2, axis=1)[:, None] + x_norms[None]
    return np.maximum(d, 0)  # [k, n]


def _plus_plus(x: np.ndarray, k: int, x_norms: np.ndarray, rng: np.random.RandomState) -> np.ndarray:
    n = len(x)
    weights = np.ones(n)
    trials = 2 + int(np.log(k))
    centres = [x[rng.choice(n, p=weights / weights.sum())]]
    closest = _squared_distances(x, centres[0][None], x_norms)[0]
    potential = closest @ weights
    for _ in range(1, k):
        draws = rng.uniform(size=trials) * potential
        candidates = np.minimum(np.searchsorted(np.cumsum(weights * closest, dtype=np.float64), draws), n - 1)
        distances = np.minimum(closest, _squared_distances(x, x[candidates], x_norms))
        potentials = distances @ weights
        best = int(np.argmin(potentials))
        potential, closest = potentials[best], distances[best]
        centres.append(x[candidates[best]])
    return np.array(centres)


def _assign(x: np.ndarray, centres: np.ndarray) -> np.ndarray:
    d = np.sum(centres**2, axis=1)[None] - 2 * (x @ centres.T)  # ||x||^2 is common to a row
    return np.argmin(d, axis=1)


def _lloyd(x: np.ndarray, centres: np.ndarray, tol: float) -> tuple[np.ndarray, float]:
    labels = None
    for _ in range(MAX_ITER):
        new_labels = _assign(x, centres)
        new_centres = centres.copy()
        for j in range(len(centres)):
            if np.any(new_labels == j):
                new_centres[j] = x[new_labels == j].mean(axis=0)
        shift = np.sum((new_centres - centres) ** 2)
        centres = new_centres
        if labels is not None and np.array_equal(labels, new_labels):
            labels = new_labels
            break
        labels = new_labels
        if shift <= tol:
            labels = _assign(x, centres)
            break
    inertia = float(np.sum((x - centres[labels]) ** 2))
    return labels, inertia


def _same_partition(a: np.ndarray, b: np.ndarray, k: int) -> bool:
    mapping = np.full(k, -1)
    for i, j in zip(a, b):
        if mapping[i] == -1:
            mapping[i] = j
        elif mapping[i] != j:
            return False
    return True


def kmeans_labels(x: np.ndarray, k: int) -> np.ndarray:
    """Cluster labels of the rows of x into k clusters, as scikit-learn's KMeans(k, n_init=3, random_state=42)."""
    x = np.asarray(x, np.float64)
    x = x - x.mean(axis=0)
    tol = float(np.mean(np.var(x, axis=0)) * TOL)
    x_norms = np.sum(x**2, axis=1)
    rng = np.random.RandomState(SEED)
    best_labels, best_inertia = None, None
    for _ in range(N_INIT):
        labels, inertia = _lloyd(x, _plus_plus(x, k, x_norms, rng), tol)
        if best_inertia is None or (inertia < best_inertia and not _same_partition(labels, best_labels, k)):
            best_labels, best_inertia = labels, inertia
    return best_labels
