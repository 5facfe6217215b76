"""An uncompressed .npz written for speed: a zip (zip64 sizes) of .npy entries whose array bytes start
at a 4096-byte boundary of the file, so that they go to the disk past the page cache where the file
system allows it (direct.py). zipfile writes neither. The file is an ordinary npz: np.load, zipfile
and unzip read it; the gap before each array is an extra field of the entry's local header, which
readers skip. Laid out from the zip format's specification (PKWARE APPNOTE 4.3)."""

from __future__ import annotations

import io
import struct
import time
import zlib
from collections.abc import Iterable
from typing import Any

import numpy as np

from .direct import ALIGN, Direct

STAGE = 1 << 24  # bytes gathered in aligned memory for one direct write
ZIP64 = 0xFFFFFFFF  # a 4-byte size or offset this big says: see the zip64 field
END_LIMIT = ZIP64  # a central directory at or past this offset (or this long) needs the zip64 end records
PAD = 0x4B54  # id of the extra field that pads an entry's data to ALIGN (unknown ids are skipped)
LOCAL = struct.Struct("<IHHHHHIIIHH")
CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")
END64 = struct.Struct("<IQHHIIQQQQ")
LOCATOR = struct.Struct("<IIQI")
END = struct.Struct("<IHHHHIIH")
VERSION = 45  # needed to extract: zip64


class NpzWriter:
    """Entries added one after the other to the file open for writing at `fd` (empty), then close()
    writes the central directory. The caller owns fd."""

    def __init__(self, fd: int):
        self.out, self.pos = Direct(fd, STAGE), 0
        self.entries: list[tuple[bytes, int, int, int]] = []  # name, crc, size, local header offset
        when = time.localtime()
        self.dos_time = (when.tm_hour << 11) | (when.tm_min << 5) | (when.tm_sec // 2)
        self.dos_date = (max(when.tm_year, 1980) - 1980) << 9 | (when.tm_mon << 5) | when.tm_mday

    def add(self, name: str, dtype: np.dtype[Any], shape: tuple[int, ...], parts: Iterable[Any]) -> None:
        """The array `name` (an entry name.npy): its bytes come in `parts` (arrays or bytes, in order)."""
        fname = f"{name}.npy".encode()
        header = npy_header(dtype, shape)
        size = len(header) + int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        start = self.pos
        fixed = LOCAL.size + len(fname) + 20 + 4  # the zip64 field and the padding field's own head
        gap = -(start + fixed + len(header)) % ALIGN
        extra = struct.pack("<HHQQ", 1, 16, size, size) + struct.pack("<HH", PAD, gap) + bytes(gap)
        at = start + LOCAL.size + len(fname) + len(extra)
        self.out.write_at(header, at)
        crc = zlib.crc32(header)
        self.out.start(at + len(header))
        for part in parts:
            data = memoryview(part).cast("B")
            crc = zlib.crc32(data, crc)
            self.out.put(data)
        end = self.out.end()
        if end != at + size:
            raise ValueError(f"{name}: {end - at} bytes written for an array of {size}")
        local = LOCAL.pack(
            0x04034B50, VERSION, 0, 0, self.dos_time, self.dos_date, crc, ZIP64, ZIP64, len(fname), len(extra)
        )
        self.out.write_at(local + fname + extra, start)
        self.entries.append((fname, crc, size, start))
        self.pos = end

    def close(self) -> None:
        """The central directory (zip64 sizes and offsets for every entry) and the end records."""
        first = self.pos
        out = bytearray()
        for fname, crc, size, offset in self.entries:
            extra = struct.pack("<HHQQQ", 1, 24, size, size, offset)
            out += CENTRAL.pack(
                0x02014B50,
                VERSION | 3 << 8,  # made by: unix
                VERSION,
                0,
                0,
                self.dos_time,
                self.dos_date,
                crc,
                ZIP64,
                ZIP64,
                len(fname),
                len(extra),
                0,
                0,
                0,
                0o644 << 16,
                ZIP64,
            )
            out += fname + extra
        count, length = len(self.entries), len(out)
        if first >= END_LIMIT or length >= END_LIMIT or count >= 0xFFFF:
            out += END64.pack(0x06064B50, END64.size - 12, VERSION, VERSION, 0, 0, count, count, length, first)
            out += LOCATOR.pack(0x07064B50, 0, first + length, 1)
            out += END.pack(0x06054B50, 0, 0, 0xFFFF, 0xFFFF, ZIP64, ZIP64, 0)
        else:
            out += END.pack(0x06054B50, 0, 0, count, count, length, first, 0)
        self.out.write_at(bytes(out), first)
        self.out.close()

    @property
    def direct(self) -> bool:
        """Whether the arrays still go past the page cache."""
        return self.out.direct


def npy_header(dtype: np.dtype[Any], shape: tuple[int, ...]) -> bytes:
    """The .npy header (format 2.0) of a C-ordered array, as numpy writes it."""
    buf = io.BytesIO()
    np.lib.format.write_array_header_2_0(
        buf, {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False, "shape": shape}
    )
    return buf.getvalue()
