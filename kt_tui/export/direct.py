"""Big arrays written past the page cache (O_DIRECT) where the file system takes it: the bytes are
gathered in aligned memory and written a whole stage at a time, what is left at the end through the
page cache. On the 2-core VM, 200 MB of inputs written through the page cache cost about 0.4 s of
system CPU, written directly about 0.03 s (issue 24). (The tables, 60 MB written in small pieces,
showed no such cost: they go through the page cache.)"""

from __future__ import annotations

import fcntl
import mmap
import os
import time

ALIGN = 4096  # direct writes start at a multiple of this in the file and are whole multiples of it
SLOW = 128e6  # bytes/s: a direct write slower than this (a disk, a network file system) ends direct writes


class Direct:
    """Writes to the file open at `fd` (the caller owns it): streams of bytes from an aligned offset
    (start, put, end) and small pieces anywhere (write_at, through the page cache)."""

    def __init__(self, fd: int, stage: int):
        self.fd, self.size = fd, stage
        self.flags = fcntl.fcntl(fd, fcntl.F_GETFL)
        self.direct = hasattr(os, "O_DIRECT")
        self.memory: mmap.mmap | None = None  # an anonymous map: page-aligned
        self.held, self.at = 0, 0  # bytes in the stage, and where in the file they go

    def write_at(self, data: bytes | memoryview, at: int) -> None:
        _pwrite_all(self.fd, data, at)

    def start(self, at: int) -> None:
        """A stream from `at`, a multiple of ALIGN."""
        if at % ALIGN:
            raise ValueError(f"a stream starts at a multiple of {ALIGN}, not at {at}")
        if self.memory is None:
            self.memory = mmap.mmap(-1, self.size)
        self.held, self.at = 0, at

    def put(self, data: memoryview) -> None:
        assert self.memory is not None
        stage = memoryview(self.memory)
        while len(data):
            k = min(len(data), self.size - self.held)
            stage[self.held : self.held + k] = data[:k]
            self.held, data = self.held + k, data[k:]
            if self.held == self.size:
                self.at, self.held = self._aligned(stage, self.at), 0
        stage.release()

    def end(self) -> int:
        """Write what is held; returns where the stream ended in the file."""
        assert self.memory is not None
        stage = memoryview(self.memory)
        whole = self.held - self.held % ALIGN
        if whole:
            self.at = self._aligned(stage[:whole], self.at)
        if self.held > whole:
            self.write_at(stage[whole : self.held], self.at)
            self.at += self.held - whole
        stage.release()
        self.held = 0
        return self.at

    def close(self) -> None:
        if self.memory is not None:
            self.memory.close()
            self.memory = None

    def _aligned(self, data: memoryview, at: int) -> int:
        """`data` (aligned memory, a multiple of ALIGN long) at the aligned offset `at`: directly while
        the file system takes it quickly enough, else through the page cache."""
        if self.direct:
            try:
                fcntl.fcntl(self.fd, fcntl.F_SETFL, self.flags | os.O_DIRECT)
                try:
                    began = time.perf_counter()
                    done = _pwrite_all(self.fd, data, at)
                    # the page cache lets a slow disk take its time after the export: better there
                    self.direct = len(data) < ALIGN * 256 or done / (time.perf_counter() - began) >= SLOW
                    return at + done
                finally:
                    fcntl.fcntl(self.fd, fcntl.F_SETFL, self.flags)
            except OSError:  # EINVAL: no direct writes here (some file systems)
                self.direct = False
        return at + _pwrite_all(self.fd, data, at)


def _pwrite_all(fd: int, data: bytes | memoryview, at: int) -> int:
    view, done = memoryview(data), 0
    while done < len(view):
        done += os.pwrite(fd, view[done:], at + done)
    return done
