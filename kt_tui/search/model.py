"""Surrogate models over encoded configurations: a Gaussian process and randomized trees (numpy, scipy)."""

from __future__ import annotations

import math

import numpy as np
from scipy.linalg import cho_factor, cho_solve, solve_triangular
from scipy.optimize import minimize
from scipy.special import erfc

SQRT5 = math.sqrt(5.0)


def encode(configs: list[tuple], values: list[list]) -> np.ndarray:
    """Configurations as points in [0, 1]^d: log2 of wide positive numeric ranges, else the value
    itself for numbers; a selector (see categorical) as one column per value (1 where it is that
    value), so that no two of its choices are nearer than two others; other values by their
    position in their list."""
    cols = []
    columns = list(zip(*configs)) or [()] * len(values)
    for i, vals in enumerate(values):
        numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals)
        if categorical(vals):
            cols += [np.array([float(v == choice) for v in columns[i]]) for choice in vals]
            continue
        if numeric and min(vals) > 0 and max(vals) >= 4 * min(vals):
            col = np.log2(np.array(columns[i], dtype=float))
        elif numeric:
            col = np.array(columns[i], dtype=float)
        else:
            pos = {v: j for j, v in enumerate(vals)}
            col = np.array([float(pos[v]) for v in columns[i]])
        lo, hi = (col.min(), col.max()) if len(col) else (0.0, 0.0)
        cols.append((col - lo) / (hi - lo) if hi > lo else col * 0.0)
    return np.stack(cols, axis=1) if cols else np.zeros((len(configs), 0))


MAX_CHOICES = 8  # a selector has at most this many choices


def categorical(vals: list) -> bool:
    """Whether a parameter's values name choices rather than amounts: 3 to MAX_CHOICES of them, either
    not numbers or the integers 0, 1, 2, ... (a method selector such as between_method = [0, 1, 2, 3]).
    Two values (a flag) need no more than one column."""
    if not 3 <= len(vals) <= MAX_CHOICES:
        return False
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
        return len(set(map(str, vals))) == len(vals)
    return sorted(vals) == list(range(len(vals)))


def _matern(a: np.ndarray, b: np.ndarray, ls: np.ndarray) -> np.ndarray:
    return _matern_r(_distance(a / ls, b / ls))


def _distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.sqrt(np.maximum((a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2.0 * a @ b.T, 0.0))


def _matern_r(r: np.ndarray) -> np.ndarray:
    return (1.0 + SQRT5 * r + 5.0 / 3.0 * r * r) * np.exp(-SQRT5 * r)


class GP:
    """A GP on standardized targets: Matern 5/2 with one length scale per dimension, fitted by
    maximum a posteriori with a log-normal prior on the length scales (few points stay stable)."""

    def __init__(self, noise: float = 1e-3, prior: float = 0.5, center: float = 0.8):
        self.noise, self.prior, self.center = noise, prior, center
        self.log_ls: np.ndarray | None = None

    def fit(self, x: np.ndarray, y: np.ndarray, tune: bool = True, tune_on: np.ndarray | None = None) -> GP:
        """tune: fit the length scales first (from the last ones), on the points tune_on (rows of x)
        when given, else on all."""
        self.x = x
        self.mu, self.sd = float(y.mean()), float(y.std()) or 1.0
        self.y = (y - self.mu) / self.sd
        d = x.shape[1]
        if self.log_ls is None or len(self.log_ls) != d:
            self.log_ls = np.full(d, math.log(self.center))
        if tune and len(y) >= 3:
            part = slice(None) if tune_on is None else tune_on
            res = minimize(
                self._nll,
                self.log_ls,
                args=(x[part], self.y[part]),
                jac=True,
                method="L-BFGS-B",
                bounds=[(math.log(0.05), math.log(5.0))] * d,
                options={"maxiter": 40},
            )
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

    def _nll(self, log_ls: np.ndarray, x: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
        """The negative log posterior of the length scales and its gradient."""
        a = x / np.exp(log_ls)
        r = _distance(a, a)
        e = np.exp(-SQRT5 * r)
        k = (1.0 + SQRT5 * r + 5.0 / 3.0 * r * r) * e + self.noise * np.eye(len(x))
        try:
            c = cho_factor(k, lower=True)
        except np.linalg.LinAlgError:
            return 1e10, np.zeros_like(log_ls)
        alpha = cho_solve(c, y)
        pen = ((log_ls - math.log(self.center)) ** 2).sum() / (2 * self.prior**2)
        value = float(0.5 * y @ alpha + np.log(np.diag(c[0])).sum() + pen)
        # d k / d log ls_j = 5/3 (1 + sqrt5 r) e (a_ij - a_kj)^2; d nll = 1/2 tr((K^-1 - alpha alpha^T) dK)
        m = (cho_solve(c, np.eye(len(x))) - np.outer(alpha, alpha)) * (5.0 / 3.0 * (1.0 + SQRT5 * r) * e)
        grad = (a * (m.sum(1)[:, None] * a - m @ a)).sum(0) + (log_ls - math.log(self.center)) / self.prior**2
        return value, grad

    def predict(self, xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.log_ls is None:
            raise RuntimeError("GP.predict before GP.fit")
        ks = _matern(xs, self.x, np.exp(self.log_ls))
        mean = ks @ self.alpha
        v = solve_triangular(self.chol[0], ks.T, lower=True, check_finite=False)  # L v = ks: var = 1 - |v|^2
        var = np.maximum(1.0 - (v * v).sum(0), 1e-12)
        return mean * self.sd + self.mu, np.sqrt(var) * self.sd


def expected_improvement(mean: np.ndarray, sd: np.ndarray, best: float, xi: float = 0.0) -> np.ndarray:
    """For minimization."""
    z = (best - xi - mean) / sd
    cdf = 0.5 * erfc(-z / math.sqrt(2.0))
    pdf = np.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)
    return sd * (z * cdf + pdf)


class Trees:
    """Extremely randomized regression trees (a random threshold per feature, the best split kept),
    all grown together level by level: numpy work per level, not Python work per node."""

    def __init__(self, n_trees: int = 30, min_leaf: int = 1, rng: np.random.Generator | None = None):
        self.n_trees, self.min_leaf = n_trees, min_leaf
        self.rng = rng or np.random.default_rng(0)

    def fit(self, x: np.ndarray, y: np.ndarray) -> Trees:
        n, d = x.shape
        size = self.n_trees * max(2 * n - 1, 1)  # the most nodes a forest of n points can have
        feat, left = np.full(size, -1), np.full(size, -1)
        thr, value = np.zeros(size), np.zeros(size)
        rows = np.tile(np.arange(n), self.n_trees)  # (tree, point) pairs still in an inner node
        node = np.repeat(np.arange(self.n_trees), n)  # node ids: the roots are 0 .. n_trees - 1
        count = self.n_trees
        while len(rows):
            order = np.argsort(node, kind="stable")
            rows, node = rows[order], node[order]
            starts = np.flatnonzero(np.r_[True, node[1:] != node[:-1]])
            ids, cnt = node[starts], np.diff(np.r_[starts, len(node)])
            seg = np.repeat(np.arange(len(ids)), cnt)
            ys, xs = y[rows], x[rows]
            total = np.add.reduceat(ys, starts)
            value[ids] = total / cnt
            lo, hi = np.minimum.reduceat(xs, starts), np.maximum.reduceat(xs, starts)
            t = lo + self.rng.random(lo.shape) * (hi - lo)
            mask = xs < t[seg]
            nl = np.add.reduceat(mask, starts).astype(float)
            sl = np.add.reduceat(mask * ys[:, None], starts)
            nr = cnt[:, None] - nl
            with np.errstate(divide="ignore", invalid="ignore"):
                gain = np.where(
                    (hi > lo) & (nl >= self.min_leaf) & (nr >= self.min_leaf),
                    sl * sl / nl + (total[:, None] - sl) ** 2 / nr,
                    -np.inf,
                )
            f = np.argmax(gain, axis=1)
            pure = np.minimum.reduceat(ys, starts) == np.maximum.reduceat(ys, starts)
            split = (cnt >= 2 * self.min_leaf) & ~pure & (gain[np.arange(len(ids)), f] > -np.inf)
            at = ids[split]
            feat[at], thr[at] = f[split], t[split, f[split]]
            left[at] = count + 2 * np.arange(len(at))  # the right child is left + 1
            count += 2 * len(at)
            keep = split[seg]
            go_left = mask[np.arange(len(rows)), f[seg]]
            rows, node = rows[keep], (left[node] + ~go_left)[keep]
        leaf = feat[:count] < 0  # a leaf leads to itself: feature 0, threshold inf, left child itself
        self.forest = (
            leaf,
            np.where(leaf, 0, feat[:count]),
            np.where(leaf, np.inf, thr[:count]),
            np.where(leaf, np.arange(count), left[:count]),
            value[:count],
        )
        return self

    def refresh(self, x: np.ndarray, y: np.ndarray) -> Trees:
        """Keep the trees' splits, give each leaf the mean of the targets that now fall in it (points
        added since the fit included); a leaf that none falls in keeps its value."""
        value = self.forest[-1]
        at = self._leaves(x)
        total = np.bincount(at, weights=np.repeat(y, self.n_trees), minlength=len(value))
        count = np.bincount(at, minlength=len(value))
        self.forest = (*self.forest[:-1], np.where(count > 0, total / np.maximum(count, 1), value))
        return self

    def predict(self, xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        out = self.forest[-1][self._leaves(xs)].reshape(len(xs), self.n_trees)
        return out.mean(1), out.std(1)

    def _leaves(self, xs: np.ndarray) -> np.ndarray:
        """The leaf each point reaches in each tree, point-major."""
        leaf, feat, thr, left, _ = self.forest
        m, d = xs.shape
        flat = xs.ravel()
        at = np.tile(np.arange(self.n_trees), m)  # (point, tree) pairs not yet at a leaf
        base = np.repeat(np.arange(m) * d, self.n_trees)
        todo = np.arange(m * self.n_trees)
        out = np.empty(m * self.n_trees, dtype=np.int64)
        while len(todo):
            for _ in range(3):  # a leaf leads to itself (feature 0, threshold inf): a few steps at once
                at = left[at] + (flat[base + feat[at]] >= thr[at])
            done = leaf[at]
            out[todo[done]] = at[done]
            todo, at, base = todo[~done], at[~done], base[~done]
        return out
