"""A split run's shares after the fact: the configurations a worker that gave up never measured,
and the workers' kernel_tuner cachefiles merged into the run's (gpu/pool.py)."""

from __future__ import annotations

import json
import os
import time

from ..records import Result, config_key
from .protocol import TuneJob
from .simcache import finalize_cache

# Imported where used: kernel_tuner (its cachefile reader), at the end of a split run only.


def lost(shard: TuneJob, seen: set, label: str, why: str, forward) -> None:
    """A worker that failed for good: its configurations not measured yet are marked failed."""
    names = list(shard.spec["tune_params"])
    for c in shard.configs or []:
        key = config_key(names, c)
        if key in seen or key in shard.known:
            continue
        seen.add(key)
        forward(
            "result",
            Result(
                key=key,
                params={k: c[k] for k in names},
                status="crash",
                error=f"GPU worker {label} gave up: {why}",
                source="measured",
                timestamp=time.strftime("%Y-%m-%d %H:%M:%S"),
            ),
        )


def merge_caches(main: str, parts: list[str]) -> None:
    """The workers' kernel_tuner cachefiles, as one: the run's, which the engine then closes."""
    from .ktimport import load

    load()
    from kernel_tuner.util import read_cache

    found = [p for p in parts if os.path.exists(p)]
    if not found:
        return
    base = read_cache(main, open_cache=False) if os.path.exists(main) else read_cache(found[0], open_cache=False)
    for p in found:
        base["cache"].update(read_cache(p, open_cache=False)["cache"])
    cache = base.pop("cache")
    with open(main, "w") as f:
        f.write(
            json.dumps(base, indent="")[:-2]
            + ',\n"cache": {'
            + ",".join("\n" + json.dumps({k: v})[1:-1] for k, v in cache.items())
            + "\n}\n}"
        )
    finalize_cache(main, {})
    for p in found:
        os.remove(p)
