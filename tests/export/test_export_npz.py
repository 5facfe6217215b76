"""The inputs' npz: an ordinary npz whose array bytes start at a 4096-byte boundary and are written past
the page cache where the file system allows it."""

from __future__ import annotations

import fcntl
import os
import shutil
import struct
import subprocess
import zipfile
from types import SimpleNamespace

import numpy as np
import pytest

from kt_tui.export import direct
from kt_tui.export import npz as npz_module
from kt_tui.export.inputs import write_inputs
from kt_tui.export.npz import NpzWriter

from .test_export_inputs import spec


def array_offsets(path) -> dict[str, int]:
    """Where each entry's array bytes start in the file (after the local header and the .npy header)."""
    out = {}
    with zipfile.ZipFile(path) as z, open(path, "rb") as f:
        for info in z.infolist():
            f.seek(info.header_offset + 26)
            name_len, extra_len = struct.unpack("<HH", f.read(4))
            start = info.header_offset + 30 + name_len + extra_len
            f.seek(start)
            head = f.read(12)
            assert head[:6] == b"\x93NUMPY"
            if head[6] == 1:
                out[info.filename] = start + 10 + struct.unpack("<H", head[8:10])[0]
            else:
                out[info.filename] = start + 12 + struct.unpack("<I", head[8:12])[0]
    return out


def written(tmp_path, arrays, name="a.npz"):
    path = tmp_path / name
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        w = NpzWriter(fd)
        for key, (value, parts) in arrays.items():
            w.add(key, value.dtype, value.shape, parts)
        w.close()
    finally:
        os.close(fd)
    return path, w


def check_reads_back(path, arrays):
    with np.load(path) as z:
        assert sorted(z.files) == sorted(arrays)
        for key, (value, _) in arrays.items():
            assert z[key].dtype == value.dtype and z[key].shape == value.shape
            assert np.array_equal(z[key], value, equal_nan=True), key
    with zipfile.ZipFile(path) as z:
        assert z.testzip() is None  # every CRC right
        assert all(i.compress_type == zipfile.ZIP_STORED for i in z.infolist())
    if shutil.which("unzip"):
        done = subprocess.run(["unzip", "-tq", str(path)], capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr


def sample():
    rng = np.random.default_rng(5)
    big = rng.standard_normal(3 * npz_module.STAGE // 8 + 1234)  # more than a stage, not a multiple of 4096
    scalar = np.asarray(np.int32(7))
    matrix = np.arange(12, dtype=np.uint8).reshape(3, 4)
    odd = np.array([1.5, np.nan, -2.0], dtype=np.float16)
    pieces = [big[i : i + 100_003] for i in range(0, len(big), 100_003)]
    return {
        "big": (big, pieces),
        "scalar": (scalar, [scalar]),
        "matrix": (matrix, [matrix.tobytes()]),
        "odd": (odd, [odd]),
        "empty": (np.zeros(0, np.float32), []),
    }


def test_an_npz_of_pieces_reads_back_with_every_array_aligned(tmp_path):
    arrays = sample()
    path, w = written(tmp_path, arrays)
    check_reads_back(path, arrays)
    assert all(offset % 4096 == 0 for offset in array_offsets(path).values()), array_offsets(path)


def test_the_zip64_end_records_and_a_file_system_without_direct_writes(tmp_path, monkeypatch):
    arrays = sample()
    monkeypatch.setattr(npz_module, "END_LIMIT", 0)  # as a central directory past 4 GiB has them
    path, _ = written(tmp_path, arrays, "end64.npz")
    check_reads_back(path, arrays)
    assert (path.read_bytes()[-98:-94]) == b"PK\x06\x06"

    real = fcntl.fcntl

    def refused(fd, cmd, arg=0):
        if cmd == fcntl.F_SETFL and arg & os.O_DIRECT:
            raise OSError(22, "Invalid argument")
        return real(fd, cmd, arg)

    monkeypatch.setattr(direct, "SLOW", 1e30)  # a disk slower than this: direct writes end
    path, w = written(tmp_path, arrays, "slow.npz")
    assert not w.direct
    check_reads_back(path, arrays)

    monkeypatch.setattr(direct.fcntl, "fcntl", refused)
    path, w = written(tmp_path, arrays, "buffered.npz")
    assert not w.direct
    check_reads_back(path, arrays)


def test_the_inputs_arrays_are_aligned_and_written_past_the_page_cache(tmp_path, monkeypatch):
    s = spec()
    calls = []
    real = fcntl.fcntl

    def spy(fd, cmd, arg=0):
        calls.append((cmd, arg))
        return real(fd, cmd, arg)

    monkeypatch.setattr(fcntl, "fcntl", spy)
    b = SimpleNamespace(spec=s, original={"id": "v0"}, data=SimpleNamespace(reference=lambda vid: None))
    path = write_inputs(b, tmp_path / "k.inputs.npz", piece=10)
    assert any(cmd == fcntl.F_SETFL and arg & os.O_DIRECT for cmd, arg in calls)
    offsets = array_offsets(path)
    assert len(offsets) == len(s.args) and all(o % 4096 == 0 for o in offsets.values()), offsets


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_a_part_of_the_wrong_length_is_refused(tmp_path, dtype):
    value = np.zeros(10, dtype)
    with pytest.raises(ValueError, match="bytes written for an array of"):
        written(tmp_path, {"a": (value, [value[:9]])})
