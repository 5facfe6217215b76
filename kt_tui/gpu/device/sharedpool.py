"""One compile-ahead pool for all the GPU workers of a host (`--gpus N`, and the Ray actors on the
app's host): a server process, started by the app's GpuPool, runs in processes of its own the compiles that every worker's
Prefetcher (gpu/device/prefetch.py) hands it, at most `size` at a time, on the host's cores less one
per GPU worker (its affinity, which nvcc and its children inherit). The workers keep the cores they
measure on, and a GPU that runs ahead gets more of the pool than one that waits on its kernel. A
compile asked for twice (by the worker that handed configurations over, then by the one that took
them) runs once.

The workers reach it through KT_TUI_COMPILE_POOL (`host|socket path|authkey hex|depth`); a worker
on another host, or one that cannot reach it, compiles ahead on a pool of its own.
"""

from __future__ import annotations

import hashlib
import math
import multiprocessing as mp
import os
import pickle
import signal
import socket
import tempfile
import threading
import time
from collections import OrderedDict
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import dataclass
from multiprocessing.connection import Client, Connection, Listener
from typing import Any

from .pools import CompilePool

ENV = "KT_TUI_COMPILE_POOL"
WINDOW = 24  # configurations compiled ahead of the one being measured, per GPU, at least
AHEAD = 8  # compiles asked for ahead per compile core: a run of slow ones (large tiles, unrolled) is
# met by those compiled ahead meanwhile (2 a core left one H100 waiting 2.7 s in 300 configurations, 8: 1.6 s)
CONNECT_S = 20  # how long a worker waits for the server to listen


@dataclass(frozen=True)
class Plan:
    """How a host's cores are shared: `kept` for the measuring processes, `cores` for compiles."""

    host_cores: int
    kept: list[int]
    cores: list[int]
    gpus: int
    limit: int | None = None  # KT_TUI_PREFETCH_WORKERS: the pool's size, whatever the cores

    @property
    def size(self) -> int:
        return self.limit or len(self.cores)

    @property
    def depth(self) -> int:
        """Compiles a GPU keeps asked for ahead of it: AHEAD for each core of its share of the pool."""
        return max(WINDOW, math.ceil(AHEAD * self.size / max(1, self.gpus)))

    def describe(self) -> str:
        return (
            f"compile-ahead: one pool of {self.size} compiles on cores {_ranges(self.cores)} "
            f"({self.host_cores} cores here, {len(self.kept)} kept for the {self.gpus} GPU workers: "
            f"{_ranges(self.kept) or 'none'}), {self.depth} configurations ahead per GPU ({self.depth * self.gpus} in all)"
        )


def plan(gpus: int, cores: list[int] | None = None) -> Plan:
    """One core per GPU worker kept free of compiles, as long as one is left to compile on."""
    have = sorted(cores if cores is not None else os.sched_getaffinity(0))
    keep = min(max(0, gpus), len(have) - 1)
    wanted = os.environ.get("KT_TUI_PREFETCH_WORKERS", "")
    limit = int(wanted) if wanted.isdigit() and int(wanted) > 0 else None
    return Plan(len(have), have[:keep], have[keep:], gpus, limit)


def _ranges(cores: list[int]) -> str:
    out, start = [], None
    for i, c in enumerate(cores):
        if start is None:
            start = c
        if i + 1 == len(cores) or cores[i + 1] != c + 1:
            out.append(f"{start}" if start == c else f"{start}-{c}")
            start = None
    return ",".join(out)


# -- the server (its own process) ------------------------------------------------------------
def _serve(address: str, authkey: bytes, size: int, cores: list[int], parent: int, ready: Connection) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's Ctrl-C is the app's to handle (front/headless.py)
    if cores:
        os.sched_setaffinity(0, cores)  # nvcc, cicc and ptxas inherit it
    pool = CompilePool(size, cores)  # NVRTC's compiles in processes of their own (pools.py)
    recent = Recent()
    listener = Listener(address, family="AF_UNIX", authkey=authkey)
    ready.send(os.getpid())
    ready.close()

    def watch() -> None:  # the app is gone (killed, even): so is the pool
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    def one(conn: Connection) -> None:
        with conn:
            while True:
                try:
                    fn, args = conn.recv()
                except (EOFError, OSError):
                    return
                try:  # at most `size` at a time: the pool's threads or processes
                    if fn is processes_wanted:  # the app picked NVRTC: they start now, not at its first compile
                        pool.start()
                        reply: tuple[bool, Any] = (True, None)
                    else:
                        reply = (True, recent.submit(pool, fn, args).result())
                except Exception as e:  # noqa: BLE001 - the worker compiles it again, the usual way
                    reply = (False, f"{type(e).__name__}: {e}")
                try:
                    conn.send(reply)
                except (OSError, ValueError):
                    return

    threading.Thread(target=watch, daemon=True).start()
    while True:
        try:
            conn = listener.accept()
        except (OSError, EOFError, mp.AuthenticationError):
            continue
        threading.Thread(target=one, args=(conn,), daemon=True).start()


class Recent:
    """The server's last compiles, by what was asked: a worker that asks for one that another has
    asked for (half of a share handed over, gpu/dealing.py) waits on that one, under way or done.
    A compile that failed is forgotten (the next ask compiles it again). At most KEEP compiles and
    KEEP_BYTES of what they made are kept, the oldest going first."""

    KEEP = 512
    KEEP_BYTES = 128 << 20

    def __init__(self) -> None:
        self.futures: OrderedDict[bytes, Future] = OrderedDict()
        self.sizes: dict[bytes, int] = {}
        self.lock = threading.RLock()

    def submit(self, pool: Executor, fn: Any, args: tuple) -> Future:
        key = hashlib.sha256(pickle.dumps((fn.__module__, fn.__qualname__, args))).digest()
        with self.lock:
            known = self.futures.get(key)
            if known is not None and not _failed(known):
                self.futures.move_to_end(key)
                return known
            self._forget(key)
            future = self.futures[key] = pool.submit(fn, *args)
        future.add_done_callback(lambda f: self._done(key, f))
        return future

    def _done(self, key: bytes, future: Future) -> None:
        with self.lock:
            if self.futures.get(key) is not future:
                return
            if _failed(future):
                self._forget(key)
                return
            self.sizes[key] = _nbytes(future.result())
            while self.futures and (len(self.futures) > self.KEEP or sum(self.sizes.values()) > self.KEEP_BYTES):
                self._forget(next(iter(self.futures)))

    def _forget(self, key: bytes) -> None:
        self.futures.pop(key, None)
        self.sizes.pop(key, None)


def _failed(future: Future) -> bool:
    return future.done() and (future.cancelled() or future.exception() is not None)


def _nbytes(value: Any) -> int:
    if isinstance(value, bytes | bytearray):
        return len(value)
    if isinstance(value, tuple | list):
        return sum(_nbytes(v) for v in value)
    return 0


class Server:
    """The app's handle on the pool's process."""

    def __init__(self, plan: Plan):
        self.plan = plan
        self.folder = tempfile.mkdtemp(prefix="kt-tui-compile-")  # 0700: only this user reaches the socket
        self.address = os.path.join(self.folder, "pool")
        self.authkey = os.urandom(16)
        ctx = mp.get_context("spawn")
        reader, writer = ctx.Pipe(duplex=False)
        self.proc = ctx.Process(
            target=_serve,
            args=(self.address, self.authkey, plan.size, plan.cores, os.getpid(), writer),
            name="kt-tui-compile",
            daemon=True,
        )
        self.proc.start()
        writer.close()
        self.reader: Connection | None = reader

    def wait(self, timeout: float = 30) -> bool:
        """True once the server listens (the workers connect on their first compile)."""
        if self.reader is None:
            return True
        try:
            ok = self.reader.poll(timeout)
            if ok:
                self.reader.recv()
        except (EOFError, OSError):  # the server died before it listened: the workers compile on their own
            ok = False
        if ok:
            self.reader.close()
            self.reader = None
        return ok

    def start_processes(self) -> None:
        """Have the pool start its compile processes now (the session compiles with NVRTC), on a
        thread here: the caller never waits for the server."""

        def ask() -> None:
            try:
                pool = SharedPool(self.address, self.authkey, 1)
                try:
                    pool.submit(processes_wanted).result(timeout=CONNECT_S)
                finally:
                    pool.shutdown()
            except Exception:  # noqa: BLE001 - they start at the first compile instead
                pass

        threading.Thread(target=ask, name="kt-tui-compile-start", daemon=True).start()

    def env(self) -> dict[str, str]:
        cores = ",".join(map(str, self.plan.cores))
        return {ENV: f"{socket.gethostname()}|{self.address}|{self.authkey.hex()}|{self.plan.depth}|{cores}"}

    def close(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(5)
        for name in os.listdir(self.folder) if os.path.isdir(self.folder) else []:
            try:
                os.remove(os.path.join(self.folder, name))
            except OSError:
                pass
        try:
            os.rmdir(self.folder)
        except OSError:
            pass


def processes_wanted() -> None:
    """A request the server answers itself (Server.start_processes): never run."""


# -- a worker's side ---------------------------------------------------------------------
class SharedPool(Executor):
    """An Executor whose calls run in the host's compile server; the threads here only wait."""

    def __init__(self, address: str, authkey: bytes, depth: int):
        self.address, self.authkey = address, authkey
        self.threads = ThreadPoolExecutor(max_workers=depth, thread_name_prefix="kt-tui-compile")
        self.local = threading.local()
        self.conns: list[Connection] = []
        self.lock = threading.Lock()

    def submit(self, fn, /, *args, **kwargs) -> Future:  # type: ignore[override]
        return self.threads.submit(self._call, fn, args)

    def _call(self, fn, args):
        conn = getattr(self.local, "conn", None)
        if conn is None:
            conn = self._connect()
            self.local.conn = conn
            with self.lock:
                self.conns.append(conn)
        conn.send((fn, args))
        ok, value = conn.recv()
        if not ok:
            raise RuntimeError(f"compile pool: {value}")
        return value

    def _connect(self) -> Connection:
        deadline = time.monotonic() + CONNECT_S  # the server starts beside the workers: it may not listen yet
        while True:
            try:
                return Client(self.address, family="AF_UNIX", authkey=self.authkey)
            except (FileNotFoundError, ConnectionRefusedError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Without `wait`, the calls under way go on (a later job may take their results over) and
        the connections close once they are back."""
        self.threads.shutdown(wait=wait, cancel_futures=cancel_futures)
        if wait:
            self._close()
        else:
            threading.Thread(target=self._close, args=(True,), name="kt-tui-compile-close", daemon=True).start()

    def _close(self, drain: bool = False) -> None:
        if drain:
            self.threads.shutdown(wait=True)
        with self.lock:
            for conn in self.conns:
                conn.close()
            self.conns.clear()


def compile_cores() -> list[int] | None:
    """The cores the host's compiles run on (a worker's own compile processes go there too), or None."""
    value = os.environ.get(ENV, "")
    try:
        return [int(c) for c in value.split("|")[4].split(",")] if from_env() else None
    except (IndexError, ValueError):
        return None


def from_env() -> tuple[str, bytes, int] | None:
    """The host's compile server this process may use: (socket, authkey, depth), or None."""
    value = os.environ.get(ENV, "")
    try:
        host, address, key, depth = value.split("|")[:4]
        if host != socket.gethostname() or not os.path.isdir(os.path.dirname(address)):
            return None
        return address, bytes.fromhex(key), max(1, int(depth))
    except ValueError:
        return None


def own_plan() -> Plan:
    """A worker with no compile server (one GPU on this host) plans the host's cores for itself
    alone: all but one core compile, as all but one per GPU do for several."""
    return plan(1)


def depth() -> int:
    """How many compile jobs this worker keeps asked for ahead."""
    found = from_env()
    return found[2] if found else own_plan().depth


def shared_pool() -> SharedPool | None:
    found = from_env()
    return SharedPool(*found) if found else None
