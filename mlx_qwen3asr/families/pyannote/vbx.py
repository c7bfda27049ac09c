"""PLDA features and VBx (Bayesian HMM clustering of x-vectors, Landini et al. 2022), in float64 numpy.

    plda/xvec_transform.npz (mean1 [256], mean2 [128], lda [256, 128]) + plda/plda.npz (mu, tr, psi)
    -> Plda: x [N, 256] -> sqrt(256) l2n(x - mean1) -> lda.T -> - mean2 -> sqrt(128) l2n
       -> (. - mu) @ tr'.T, with tr', psi' from the generalised eigenproblem B v = l W v
          (W = inv(tr.T tr), B = inv(tr.T diag(1/psi) tr)), eigenvalues in decreasing order   [N, 128]
    -> vbx(features, phi = psi', AHC clusters): responsibilities q [N, K], speaker priors pi [K]

VBx starts from q = softmax(7 x one-hot(AHC)) with K = number of AHC clusters and iterates at most 20
times, stopping when the ELBO gains less than 1e-4. Eigenvector signs are LAPACK's choice; VBx only sees
squares and products within one dimension, so they do not change the result.
"""

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.linalg import eigh
from scipy.special import logsumexp, softmax

LDA_DIM = 128
INIT_SMOOTHING = 7.0
MAX_ITERS = 20
ELBO_EPSILON = 1e-4
PRIOR_EPS = 1e-8


def l2_normalise(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


@dataclass(frozen=True)
class Plda:
    mean1: np.ndarray
    mean2: np.ndarray
    lda: np.ndarray
    mu: np.ndarray
    transform: np.ndarray  # tr' [128, 128], rows by decreasing between-speaker variance
    phi: np.ndarray  # psi'[:128]

    @classmethod
    def from_folder(cls, folder: Path) -> "Plda":
        """plda/xvec_transform.npz and plda/plda.npz of the release."""
        xvec, plda = np.load(folder / "xvec_transform.npz"), np.load(folder / "plda.npz")
        tr, psi = plda["tr"], plda["psi"]
        within = np.linalg.inv(tr.T @ tr)
        between = np.linalg.inv((tr.T / psi) @ tr)
        variances, vectors = eigh(between, within)
        return cls(xvec["mean1"], xvec["mean2"], xvec["lda"], plda["mu"], vectors.T[::-1], variances[::-1][:LDA_DIM])

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """Raw embeddings [N, 256] -> PLDA features [N, 128] (float64)."""
        rows, dim = self.lda.shape
        centred = np.sqrt(rows) * l2_normalise(x - self.mean1)
        projected = np.sqrt(dim) * l2_normalise(centred @ self.lda - self.mean2)
        return ((projected - self.mu) @ self.transform.T)[:, :dim]


def vbx(features: np.ndarray, phi: np.ndarray, ahc: np.ndarray, fa: float, fb: float) -> tuple[np.ndarray, np.ndarray]:
    """VBx from an AHC initialisation: (responsibilities [N, K], speaker priors [K])."""
    q = np.zeros((len(ahc), ahc.max() + 1))
    q[np.arange(len(ahc)), ahc] = 1.0
    q = softmax(q * INIT_SMOOTHING, axis=1)
    pi = np.full(q.shape[1], 1.0 / q.shape[1])
    dim = features.shape[1]
    constant = -0.5 * (np.sum(features**2, axis=1, keepdims=True) + dim * np.log(2 * np.pi))
    rho = features * np.sqrt(phi)
    previous = None
    for iteration in range(MAX_ITERS):
        inv_l = 1.0 / (1 + fa / fb * q.sum(axis=0, keepdims=True).T * phi)
        alpha = fa / fb * inv_l * q.T.dot(rho)
        log_p = fa * (rho.dot(alpha.T) - 0.5 * (inv_l + alpha**2).dot(phi) + constant)
        log_prior = np.log(pi + PRIOR_EPS)
        log_px = logsumexp(log_p + log_prior, axis=-1)
        q = np.exp(log_p + log_prior - log_px[:, None])
        pi = q.sum(axis=0)
        pi = pi / pi.sum()
        elbo = np.sum(log_px, axis=0) + fb * 0.5 * np.sum(np.log(inv_l) - inv_l - alpha**2 + 1)
        if iteration > 0 and elbo - previous < ELBO_EPSILON:
            break
        previous = elbo
    return q, pi
