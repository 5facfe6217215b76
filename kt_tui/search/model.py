"""Surrogate models over encoded configurations: a Gaussian process and randomized trees (numpy, scipy)."""

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
        lo, hi = (col.min(), col.max()) if len(col) else (0.0, 0.0)
        cols.append((col - lo) / (hi - lo) if hi > lo else col * 0.0)
    return np.stack(cols, axis=1) if cols else np.zeros((len(configs), 0))


def _matern(a: np.ndarray, b: np.ndarray, ls: np.ndarray) -> np.ndarray:
    a, b = a / ls, b / ls
    r = np.sqrt(np.maximum((a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2.0 * a @ b.T, 0.0))
    return (1.0 + SQRT5 * r + 5.0 / 3.0 * r * r) * np.exp(-SQRT5 * r)


class GP:
    """A GP on standardized targets: Matern 5/2 with one length scale per dimension, fitted by
    maximum a posteriori with a log-normal prior on the length scales (few points stay stable)."""

    def __init__(self, noise: float = 1e-3, prior: float = 0.5, center: float = 0.8):
        self.noise, self.prior, self.center = noise, prior, center
        self.log_ls: np.ndarray | None = None

    def fit(self, x: np.ndarray, y: np.ndarray, tune: bool = True) -> "GP":
        self.x = x
        self.mu, self.sd = float(y.mean()), float(y.std()) or 1.0
        self.y = (y - self.mu) / self.sd
        d = x.shape[1]
        if self.log_ls is None or len(self.log_ls) != d:
            self.log_ls = np.full(d, math.log(self.center))
        if tune and len(y) >= 3:
            res = minimize(self._nll, self.log_ls, method="L-BFGS-B",
                           bounds=[(math.log(0.05), math.log(5.0))] * d, options={"maxiter": 40})
            if np.isfinite(res.fun):
                self.log_ls = res.x
        k = _matern(x, x, np.exp(self.log_ls))
        for jitter in (self.noise, 1e-2, 1e-1):
            try:
                self.chol = cho_factor(k + jitter * np.eye(len(x)), lower=True)
                break
            except np.linalg.LinAlgError:
                continue
        self.alpha = cho_solve(self.chol, self.y)
        return self

    def _nll(self, log_ls: np.ndarray) -> float:
        k = _matern(self.x, self.x, np.exp(log_ls)) + self.noise * np.eye(len(self.x))
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


class Trees:
    """Extremely randomized regression trees (random threshold per feature, best split kept)."""

    def __init__(self, n_trees: int = 30, min_leaf: int = 1, rng: np.random.Generator | None = None):
        self.n_trees, self.min_leaf = n_trees, min_leaf
        self.rng = rng or np.random.default_rng(0)

    def fit(self, x: np.ndarray, y: np.ndarray) -> "Trees":
        self.trees = [self._grow(x, y) for _ in range(self.n_trees)]
        return self

    def _grow(self, x, y):
        feat, thr, left, right, value = [], [], [], [], []
        stack = [(np.arange(len(y)), -1, False)]
        rand = self.rng.random((2 * len(y) + 1, x.shape[1]))
        while stack:
            rows, parent, is_right = stack.pop()
            node = len(feat)
            if parent >= 0:
                (right if is_right else left)[parent] = node
            ys = y[rows]
            total, n = float(ys.sum()), len(rows)
            feat.append(-1), thr.append(0.0), left.append(-1), right.append(-1), value.append(total / n)
            if n < 2 * self.min_leaf or ys.max() == ys.min():
                continue
            xs = x[rows]
            lo, hi = xs.min(0), xs.max(0)
            t = lo + rand[node] * (hi - lo)
            mask = xs < t
            nl = mask.sum(0)
            nr = n - nl
            sl = ys @ mask
            with np.errstate(divide="ignore", invalid="ignore"):
                gain = np.where((hi > lo) & (nl >= self.min_leaf) & (nr >= self.min_leaf),
                                sl * sl / nl + (total - sl) ** 2 / nr, -np.inf)
            f = int(np.argmax(gain))
            if gain[f] == -np.inf:
                continue
            feat[node], thr[node] = f, float(t[f])
            stack.append((rows[~mask[:, f]], node, True))
            stack.append((rows[mask[:, f]], node, False))
        return tuple(np.array(a) for a in (feat, thr, left, right, value))

    def predict(self, xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        out = np.empty((len(self.trees), len(xs)))
        rows = np.arange(len(xs))
        for k, (feat, thr, left, right, value) in enumerate(self.trees):
            at = np.zeros(len(xs), dtype=int)
            while True:
                f = feat[at]
                inner = f >= 0
                if not inner.any():
                    break
                go_left = xs[rows, np.where(inner, f, 0)] < thr[at]
                at = np.where(inner, np.where(go_left, left[at], right[at]), at)
            out[k] = value[at]
        return out.mean(0), out.std(0)
