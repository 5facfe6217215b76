"""A small Gaussian-process surrogate over encoded configurations (numpy + scipy only)."""

from __future__ import annotations

import math

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.optimize import minimize
from scipy.special import erfc

SQRT5 = math.sqrt(5.0)


def encode(configs: list[tuple], values: list[list]) -> np.ndarray:
    """Configurations as points in [0, 1]^d: log2 of wide positive numeric ranges, else the value
    itself for numbers, else the value's position in its list."""
    cols = []
    for i, vals in enumerate(values):
        numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals)
        if numeric and min(vals) > 0 and max(vals) >= 4 * min(vals):
            col = np.log2([float(c[i]) for c in configs])
        elif numeric:
            col = np.array([float(c[i]) for c in configs])
        else:
            pos = {v: j for j, v in enumerate(vals)}
            col = np.array([float(pos[c[i]]) for c in configs])
        lo, hi = col.min(initial=0.0), col.max(initial=0.0)
        cols.append((col - lo) / (hi - lo) if hi > lo else col * 0.0)
    return np.stack(cols, axis=1) if cols else np.zeros((len(configs), 0))


def _matern(a: np.ndarray, b: np.ndarray, ls: np.ndarray) -> np.ndarray:
    d = (a[:, None, :] - b[None, :, :]) / ls
    r = np.sqrt(np.maximum((d * d).sum(-1), 0.0))
    return (1.0 + SQRT5 * r + 5.0 / 3.0 * r * r) * np.exp(-SQRT5 * r)


class GP:
    """Zero-mean GP on standardized targets, Matern 5/2 with one length scale per dimension."""

    def __init__(self, noise: float = 1e-3, prior: float = 0.5, center: float = 0.5, learn_noise: bool = False, lo: float = 0.05):
        self.lo = lo
        self.noise, self.prior, self.center = noise, prior, center  # a log-normal prior on length scales
        self.learn_noise = learn_noise
        self.log_ls: np.ndarray | None = None

    def fit(self, x: np.ndarray, y: np.ndarray, tune: bool = True) -> "GP":
        self.x = x
        self.mu, self.sd = float(y.mean()), float(y.std()) or 1.0
        self.y = (y - self.mu) / self.sd
        d = x.shape[1]
        if self.log_ls is None or len(self.log_ls) != d:
            self.log_ls = np.full(d, math.log(self.center))
        if tune and len(y) >= 3:
            if self.learn_noise:
                f = lambda p: self._nll(p[:-1], math.exp(p[-1])) + (p[-1] - math.log(0.01)) ** 2 / 2
                res = minimize(f, np.append(self.log_ls, math.log(self.noise)), method="L-BFGS-B",
                               bounds=[(math.log(self.lo), math.log(5.0))] * d + [(math.log(1e-4), math.log(0.5))],
                               options={"maxiter": 40})
                if np.isfinite(res.fun):
                    self.log_ls, self.noise = res.x[:-1], math.exp(res.x[-1])
            else:
                res = minimize(self._nll, self.log_ls, method="L-BFGS-B",
                           bounds=[(math.log(self.lo), math.log(5.0))] * d, options={"maxiter": 40})
                if np.isfinite(res.fun):
                    self.log_ls = res.x
        k = _matern(x, x, np.exp(self.log_ls)) + self.noise * np.eye(len(x))
        self.chol = cho_factor(k, lower=True)
        self.alpha = cho_solve(self.chol, self.y)
        return self

    def _nll(self, log_ls: np.ndarray, noise=None) -> float:
        k = _matern(self.x, self.x, np.exp(log_ls)) + (noise or self.noise) * np.eye(len(self.x))
        try:
            c = cho_factor(k, lower=True)
        except np.linalg.LinAlgError:
            return 1e10
        a = cho_solve(c, self.y)
        pen = ((log_ls - math.log(self.center)) ** 2).sum() / (2 * self.prior ** 2)
        return float(0.5 * self.y @ a + np.log(np.diag(c[0])).sum() + pen)

    def predict(self, xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ks = _matern(xs, self.x, np.exp(self.log_ls))
        mean = ks @ self.alpha
        v = cho_solve(self.chol, ks.T)
        var = np.maximum(1.0 - (ks * v.T).sum(1), 1e-12)
        return mean * self.sd + self.mu, np.sqrt(var) * self.sd


def expected_improvement(mean: np.ndarray, sd: np.ndarray, best: float, xi: float = 0.0) -> np.ndarray:
    """For minimization."""
    z = (best - xi - mean) / sd
    cdf = 0.5 * erfc(-z / math.sqrt(2.0))
    pdf = np.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)
    return sd * (z * cdf + pdf)


def _sample(gp, xs, rng):
    ks = _matern(xs, gp.x, np.exp(gp.log_ls))
    mean = ks @ gp.alpha
    v = cho_solve(gp.chol, ks.T)
    cov = _matern(xs, xs, np.exp(gp.log_ls)) - ks @ v
    cov = (cov + cov.T) / 2 + 1e-8 * np.eye(len(xs))
    w, q = np.linalg.eigh(cov)
    z = q @ (np.sqrt(np.maximum(w, 0)) * rng.standard_normal(len(xs)))
    return mean + z
