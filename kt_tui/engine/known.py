"""The stored results a tuning job's worker is told of (so that it measures none of them again):
those its space can meet, read in the cheaper of two ways."""

from __future__ import annotations

import itertools
import math
from typing import Any

from ..kernel.spec import Spec
from ..records import Known
from ..store import SessionStore


def known_in_space(data: SessionStore, vid: str, spec: Spec) -> dict[str, Any]:
    """The stored results of `vid` that a run over the spec's space can meet. A space of few
    configurations in a large session is looked up key by key; otherwise every stored result of
    the version is read and those outside the space are left out."""
    values = [[str(v) for v in vs] for vs in spec.tune_params.values()]
    if math.prod(len(vs) for vs in values) * 16 < data.count_results():
        known = data.known(vid)
        return {
            k: Known(r.params, r.time_ms, r.status)
            for k in map(",".join, itertools.product(*values))
            if (r := known.get(k)) is not None
        }
    return in_space(spec, data.known_for_worker(vid))


def in_space(spec: Spec, known: dict[str, Any]) -> dict[str, Any]:
    """The stored results a run over the spec's space can meet: keys made of its values (a version
    may hold results of an earlier space); the others need not travel to the worker."""
    values = [[str(v) for v in vs] for vs in spec.tune_params.values()]
    if math.prod(len(vs) for vs in values) <= len(known):  # fewer configurations than results: look each up
        return {k: known[k] for k in map(",".join, itertools.product(*values)) if k in known}
    sets = [set(vs) for vs in values]
    return {
        k: r
        for k, r in known.items()
        if len(parts := k.split(",")) == len(sets) and all(p in vs for p, vs in zip(parts, sets))
    }
