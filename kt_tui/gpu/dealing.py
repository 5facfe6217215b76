"""A run over several workers (gpu/pool.py): split, then dealt again while it goes.

A run is first dealt round-robin (`split`), one share per worker. GPUs do not finish their shares together:
one waits longer on compiles, one runs the check's test first. So a worker that has finished takes
half of what the busiest one has left: that one is asked to stop after its current configuration,
keeps the first half (compiled ahead already) and hands over the second. A worker that starts late
(the GPU the check's test is running on) starts that way, with no share of its own, once the test
has left its GPU, and so measures nothing while the test could disturb its timings.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from typing import Any

from ..kernel.spec import spec_from_plain
from ..records import config_key
from ..search.lazy import LazySpace, is_huge
from ..search.space import configurations
from .protocol import CheckJob, TuneJob

MIN_HALF = 8  # configurations: a share with less than twice this left is not split
WAIT_S = 0.5  # a thief asks the one it takes from again this often (a stop asked between two jobs is lost)


@dataclasses.dataclass
class Share:
    worker: Any
    job: TuneJob | None = None
    seen: set = dataclasses.field(default_factory=set)  # keys measured in `job`
    running: bool = False
    giving: bool = False  # asked to stop and hand half of its rest over
    waiting: bool = False  # has nothing left and waits for half of another's rest
    inbox: TuneJob | None = None  # what it was handed


class Dealer:
    def __init__(
        self,
        workers: list,
        shards: list[TuneJob | None],
        stopping: Callable[[], bool],
        paused: Callable[[], bool] = lambda: False,
    ):
        self.shares = [Share(w, s) for w, s in zip(workers, shards, strict=True)]
        self.cond = threading.Condition()
        self.stopping, self.paused = stopping, paused

    def first(self, i: int) -> TuneJob | None:
        with self.cond:
            share = self.shares[i]
            share.running = share.job is not None
            return share.job

    def measured(self, i: int, key: str) -> None:
        self.shares[i].seen.add(key)

    def next(self, i: int, info: dict) -> tuple[TuneJob | None, dict]:
        """After worker i's job ended: its next job (or None), and the job's info as the run reports
        it (a stop this dealer asked for is not the user's)."""
        with self.cond:
            share = self.shares[i]
            share.running = False
            self.cond.notify_all()
            if share.giving:
                share.giving = False
                info = dict(info, stopped=bool(self.stopping() and info.get("stopped")))
                rest = self._rest(share)
                taker = next((s for s in self.shares if s.waiting and s.inbox is None), None)
                half = len(rest) // 2 if taker is not None and not self.stopping() else 0
                if half:
                    taker.inbox = _job(share.job, rest[len(rest) - half :])  # type: ignore[union-attr]
                    rest = rest[: len(rest) - half]  # its own next ones: compiled ahead already
                if rest and not self.stopping():
                    return self._start(share, _job(share.job, rest)), info
                return None, info
            if info.get("stopped") or self.stopping():
                return None, info
        return self.steal(i), info

    def failed(self, i: int) -> None:
        with self.cond:
            self.shares[i].running = self.shares[i].giving = False
            self.cond.notify_all()

    def steal(self, i: int) -> TuneJob | None:
        """Worker i has nothing left: half of the busiest share's rest, or None when no share is
        worth splitting."""
        with self.cond:
            me = self.shares[i]
            me.waiting = True
            try:
                while not self.stopping():
                    if me.inbox is not None:
                        job, me.inbox = me.inbox, None
                        return self._start(me, job)
                    if self.paused():  # a stop asked of a paused worker would let it go on
                        self.cond.wait(WAIT_S)
                        continue
                    victim = self._victim(me)
                    if victim is None:
                        return None
                    if not victim.giving or not self.cond.wait(WAIT_S):
                        victim.giving = True
                        _ask_stop(victim.worker)
                return None
            finally:
                me.waiting = False

    def _victim(self, me: Share) -> Share | None:
        busy = [(len(self._rest(s)), n) for n, s in enumerate(self.shares) if s is not me and s.running]
        busy = [(left, n) for left, n in busy if left >= 2 * MIN_HALF]
        if not busy:
            return None
        giving = [n for _, n in busy if self.shares[n].giving]
        return self.shares[giving[0] if giving else max(busy)[1]]

    def _start(self, share: Share, job: TuneJob) -> TuneJob:
        share.job, share.seen, share.running = job, set(), True
        return job

    @staticmethod
    def _rest(share: Share) -> list[dict]:
        job = share.job
        if job is None or job.configs is None:
            return []
        names = list(job.spec["tune_params"])
        rest = [c for c in job.configs if config_key(names, c) not in share.seen]
        if job.max_configs:
            rest = rest[: max(0, job.max_configs - len(share.seen))]
        return rest


class Busy:
    """Whether something is running (a context manager around it), and a wait for it to end."""

    def __init__(self) -> None:
        self._count = 0
        self._cond = threading.Condition()

    def __enter__(self) -> Busy:
        with self._cond:
            self._count += 1
        return self

    def __exit__(self, *exc: object) -> None:
        with self._cond:
            self._count -= 1
            self._cond.notify_all()

    def busy(self) -> bool:
        return self._count > 0

    def hold(self) -> Callable[[], None]:
        """Busy until the returned call (later calls of it do nothing)."""
        self.__enter__()
        left = threading.Lock()

        def release() -> None:
            if left.acquire(blocking=False):
                self.__exit__()

        return release

    def wait_clear(self, timeout: float | None = None) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: self._count == 0, timeout)


def _ask_stop(worker: Any) -> None:
    stop = getattr(worker, "request_stop", None)
    if stop is not None:
        stop()


def _job(like: TuneJob | None, configs: list[dict]) -> TuneJob:
    assert like is not None
    return dataclasses.replace(like, configs=configs, max_configs=len(configs) if like.max_configs else None)


def split(job: TuneJob | CheckJob, n: int, dealt: bool = False) -> list:
    """One job per worker: a run's configurations dealt round-robin (`dealt`: listed even for one).
    Checks, single configurations and adaptive searches (each pick depends on the last result)
    stay on the first worker."""
    if (n < 2 and not dealt) or not isinstance(job, TuneJob):
        return [job]
    if job.configs is not None:
        todo = job.configs
    elif job.search == "brute_force":
        spec = spec_from_plain(job.spec)
        if is_huge(spec) and job.max_configs:  # a budget needs only the first configurations in order
            found = LazySpace(spec).first(job.max_configs + len(job.known) + len(job.seeds))
        else:
            found = configurations(spec)
        todo = [dict(zip(spec.tune_params, c)) for c in found]
    else:
        return [job]
    names = list(spec_names(job))
    keys, pending = set(), []
    for c in [*job.seeds, *todo]:  # seeds first, dealt like the rest
        key = config_key(names, c)
        if key not in job.known and key not in keys:
            keys.add(key)
            pending.append(c)
    if len(pending) < 2:
        return [job]
    budget = job.max_configs
    n = min(n, len(pending), budget or n)
    return [
        dataclasses.replace(
            job,
            configs=pending[i::n],
            known=dict(job.known),
            seeds=[],
            max_configs=(budget // n + (i < budget % n)) if budget else None,
        )
        for i in range(n)
    ]


def spec_names(job: TuneJob) -> list[str]:
    return list(job.spec["tune_params"])
