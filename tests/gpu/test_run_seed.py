"""kernel_tuner's own strategies walk the same way in the same run of the same kernel: the worker seeds
the generators they draw from with the run's seed (the engine's, from the kernel version and run id)."""

from __future__ import annotations

import dataclasses

from ..helpers import run_tune_job
from .scale_fakes import matmul_job


def _walk(job) -> list[str]:
    keys: list[str] = []
    run_tune_job(job, lambda kind, p: keys.append(p.key) if kind == "result" else None)
    return keys


def test_random_sample_walks_the_same_way_for_the_same_run_seed_and_another_for_another():
    job = matmul_job(search="random_sample", max_configs=8, run_seed=1234)
    first, again = _walk(job), _walk(job)
    other = _walk(dataclasses.replace(job, run_seed=99))
    assert len(first) == 8 and first == again
    assert other != first
