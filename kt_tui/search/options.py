"""What a tuning run tells its search beyond the configurations: for ours (kt), the rules behind each
seed and a random seed fixed by the run, so that a run's walk can be replayed.

No numpy or scipy here: the engine imports it before any search runs."""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from typing import Any


def run_seed(identity: str) -> int:
    """A random seed that depends only on the run's identity (its kernel version and run id): the same
    run of the same kernel walks the same configurations, on any machine, in any process."""
    return zlib.crc32(identity.encode()) & 0x7FFFFFFF


def search_options(
    search: str,
    given: Mapping[str, Any] | None,
    seed_groups: Sequence[str],
    identity: str,
    seed_named: Sequence[Sequence[str]] = (),
) -> dict[str, Any]:
    """The strategy options of a run. For kt: the patterns that picked each seed (seed_rules, when every
    seed has one: it weighs each rule's seeds by their measurements), the parameters they name
    (seed_named: it sets the others from what it has measured) and a seed from the run's identity
    unless one is given. kernel_tuner's strategies reject options they do not know: theirs pass as given."""
    options = dict(given or {})
    if search != "kt":
        return options
    if seed_groups and all(seed_groups):
        options["seed_rules"] = list(seed_groups)
        if len(seed_named) == len(seed_groups):
            options["seed_named"] = [list(n) for n in seed_named]
    options.setdefault("seed", run_seed(identity))
    return options
