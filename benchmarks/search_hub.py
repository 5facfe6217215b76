"""benchmarks/search.py's spaces from kernel_tuner cache files and benchmark_hub, which of them are held
out, and the per-run results of the strategies that do not change while ours does, kept on disk.

A cache file PATH.json (or PATH.json.gz) is read where it lies, with the kernel's source PATH.cu and
our spec PATH.cu.toml beside it when they are there: the heuristic seeds then apply as in a user's
session. benchmark_hub's spaces are named in benchmarks/spaces/hub/hub.toml by their paths in a
checkout (`--hub CHECKOUT`), the kernel source read from the checkout and the spec ours.

Held out: a recording made on a GPU other than TUNING_GPUS. The search is changed while looking only
at the others; the held-out ones run only with --held-out, once, and are reported apart."""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import kernel_tuner
import numpy as np

HUB = Path(__file__).resolve().parent / "spaces" / "hub"
TUNING_GPUS = ("RTX 3090", "A100", "H200")  # the GPUs whose recordings the search may be tuned on
RESULTS_FORMAT = 1  # bump when what a cached run holds or how it is measured changes
NEEDLE_SPEEDUP = 2.0


@dataclass
class CacheSpace:
    """Where a cache-file space's parts are: the cache, the kernel's source and our spec (None: absent)."""

    cache: Path
    source: Path | None = None
    spec: Path | None = None
    label: str | None = None


def beside(path: Path) -> CacheSpace:
    """PATH.json with PATH.cu and PATH.cu.toml beside it, where they are."""
    stem = str(path).removesuffix(".gz").removesuffix(".json")
    source, spec = Path(stem + ".cu"), Path(stem + ".cu.toml")
    return CacheSpace(path, source if source.is_file() else None, spec if spec.is_file() else None)


def read_cache(path: Path) -> dict:
    """A kernel_tuner cache file, plain or gzipped."""
    raw = path.read_bytes()
    return json.loads(gzip.decompress(raw) if path.suffix == ".gz" else raw)


def hub_spaces(checkout: Path) -> dict[str, CacheSpace]:
    """benchmark_hub's spaces by label (KERNEL@GPU), found in a checkout (a cache as .json or .json.gz)."""
    manifest = tomllib.loads((HUB / "hub.toml").read_text())
    out = {}
    for kernel, entry in manifest.items():
        for rel in entry["caches"]:
            cache = checkout / rel
            if not cache.is_file() and Path(f"{cache}.gz").is_file():
                cache = Path(f"{cache}.gz")
            if not cache.is_file():
                raise SystemExit(f"--hub {checkout}: no {rel} (or .gz) there: not a benchmark_hub checkout?")
            label = f"{kernel}@{Path(rel).stem}"
            source = checkout / entry["source"] if "source" in entry else None
            if source is not None and not source.is_file():
                raise SystemExit(f"--hub {checkout}: no kernel source {entry['source']} there")
            out[label] = CacheSpace(cache, source, HUB / entry["spec"] if "spec" in entry else None, label)
    return out


def held_out(gpu: str) -> bool:
    """Whether a recording on this GPU is held out (not one of TUNING_GPUS)."""
    return not any(g.lower() in (gpu or "").lower() for g in TUNING_GPUS)


def source_defaults(source: str, params: dict[str, list]) -> dict:
    """The values a kernel's source gives its tuned parameters (`#define NAME VALUE`, kernel_tuner's
    `#ifndef` style), where they are among the recorded values: a spec's defaults when there is none."""
    out = {}
    for name, values in params.items():
        m = re.search(rf"^[ \t]*#[ \t]*define[ \t]+{re.escape(name)}[ \t]+(\S+)", source, re.M)
        for v in values:
            if m and str(v) == m.group(1):
                out[name] = v
    return out


def file_hash(*paths: Path | None) -> str:
    h = hashlib.sha256()
    for p in paths:
        h.update(p.read_bytes() if p is not None else b"-")
    return h.hexdigest()[:20]


class RunCache:
    """Per-run results on disk (outside the repository), keyed by what decides them: the space's
    files, its variant, the strategy (kt@REF by its commit), the run seed, the evaluation cap and
    kernel_tuner's version. Runs cut by the wall-clock limit are not kept."""

    def __init__(self, folder: Path | None):
        self.folder = folder
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)

    def key(self, space_hash: str, variant: str, strategy: str, seed: int, cap: int) -> str:
        text = json.dumps([RESULTS_FORMAT, space_hash, variant, strategy, seed, cap, kernel_tuner.__version__])
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    def get(self, key: str) -> dict | None:
        if self.folder is None:
            return None
        path = self.folder / f"{key}.json"
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            return None

    def put(self, key: str, run: dict) -> None:
        if self.folder is not None and not run.get("cut"):
            tmp = self.folder / f"{key}.json.tmp"
            tmp.write_text(json.dumps(run))
            tmp.replace(self.folder / f"{key}.json")


def held_only(names: list[str], held: set):
    """A kernel_tuner restriction (called positionally or by keyword) that admits the held configurations."""

    def restrict(*values, **config):
        env = config or dict(zip(names, values))
        return tuple(str(env[n]) for n in names) in held

    return restrict


def needle(data: dict, params: dict, optimum: float, seed: int) -> dict:
    """The cache with a needle: one measured configuration drawn with the seed becomes NEEDLE_SPEEDUP
    times faster than the optimum, its one-step neighbours (the next or previous value of one
    parameter) NEEDLE_SPEEDUP / 1.5 times faster; the rest stays as recorded."""
    names = list(params)
    cache = {k: dict(v) for k, v in data["cache"].items()}
    ok = sorted(k for k, e in cache.items() if isinstance(e.get("time"), (int, float)))
    center = cache[ok[int(np.random.default_rng(seed).integers(len(ok)))]]
    by_config = {tuple(e[n] for n in names): e for e in cache.values()}
    config = tuple(center[n] for n in names)
    for j, n in enumerate(names):
        at = params[n].index(config[j])
        for k in (at - 1, at + 1):
            e = by_config.get(config[:j] + (params[n][k],) + config[j + 1 :]) if 0 <= k < len(params[n]) else None
            if e is not None and isinstance(e.get("time"), (int, float)):
                e["time"] = min(e["time"], optimum * 1.5 / NEEDLE_SPEEDUP)
    center["time"] = optimum / NEEDLE_SPEEDUP
    return {**data, "cache": cache}
