"""Reference outputs (the original kernel's, which every version is checked against): one raw .npy
per output in a folder beside the database, with a row holding their checksum. The checksum also
covers how the inputs were generated (kernel/inputs.py GENERATOR): outputs taken from the inputs of
another kt-tui read as missing and are taken again."""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from typing import Any

from .db import Database


class ReferenceFiles(Database):
    def __init__(self, path: str | Path, refs_dir: str | Path | None = None):
        super().__init__(path)
        self.refs_dir = Path(refs_dir) if refs_dir else Path(self.path).resolve().parent / "refs"
        self._refs: dict[tuple[str, str], dict[str, Any]] = {}  # reference outputs set or read by this process
        self._writers: list[threading.Thread] = []
        self._write_lock = threading.Lock()

    def set_reference(self, sid: str, vid: str, outputs: dict[str, Any]) -> None:
        """Reference outputs: kept in memory for this process, and written beside the database as
        one raw .npy per output (they can be large) by a background thread; the row, with the
        files' checksum, is written after them. They are reproducible (inputs come from the spec's
        seeds), so a process killed before the row is written only makes the next run recompute them."""
        import numpy as np  # not at import: listing sessions needs no numpy

        outputs = {k: np.asarray(v) for k, v in outputs.items()}
        self._refs[(sid, vid)] = outputs
        if self.path == ":memory:":  # another thread would open another, empty, database
            return self._write_reference(sid, vid, outputs)
        writer = threading.Thread(target=self._write_reference, args=(sid, vid, outputs), name="kt-tui-refs")
        writer.start()  # not a daemon: the interpreter waits for it at exit
        self._writers.append(writer)

    def flush_references(self) -> None:
        """Wait until every reference handed to set_reference is on disk."""
        while self._writers:
            self._writers.pop().join()

    def _write_reference(self, sid: str, vid: str, outputs: dict[str, Any]) -> None:
        with self._write_lock:
            self._write_reference_files(sid, vid, outputs)

    def _write_reference_files(self, sid: str, vid: str, outputs: dict[str, Any]) -> None:
        self.refs_dir.mkdir(parents=True, exist_ok=True)
        digest = _digest()
        for name, arr in outputs.items():
            path = self.refs_dir / f"{sid}-{vid}.{name}.npy"
            _np().save(path, arr, allow_pickle=False)
            _hash_file(digest, path)
        summary = {k: [str(v.dtype), list(v.shape)] for k, v in outputs.items()}
        self._upsert(
            "refs",
            {
                "session": sid,
                "version": vid,
                "file": f"{sid}-{vid}",
                "sha256": digest.hexdigest(),
                "summary": json.dumps(summary),
            },
        )

    def reference(self, sid: str, vid: str) -> dict[str, Any] | None:
        """The reference outputs (memory-mapped from disk), or None when missing or damaged
        (then they are recomputed)."""
        if (sid, vid) in self._refs:
            return self._refs[(sid, vid)]
        rows = self._rows_where("refs", "session = ? AND version = ?", [sid, vid])
        if not rows:
            return None
        row = rows[0]
        if row["file"].endswith(".npz"):  # written by an older kt-tui, from inputs generated otherwise
            return None
        digest, out = _digest(), {}
        try:
            for name in json.loads(row["summary"]):
                path = self.refs_dir / f"{row['file']}.{name}.npy"
                _hash_file(digest, path)
                out[name] = _np().load(path, mmap_mode="r", allow_pickle=False)
        except (OSError, ValueError):
            return None
        if digest.hexdigest() != row["sha256"]:
            return None
        self._refs[(sid, vid)] = out
        return out


def _hash_file(digest: Any, path: Path) -> None:
    with open(path, "rb") as f:
        while chunk := f.read(1 << 24):
            digest.update(chunk)


def _digest() -> Any:
    from ..kernel.inputs import GENERATOR  # not at import: it loads numpy

    return hashlib.sha256(f"inputs {GENERATOR}\n".encode())


def _np() -> Any:
    import numpy  # not at import: listing sessions needs no numpy

    return numpy
