"""One 64-bit little-endian ELF file's sections by name (a cubin: its kernels' machine code)."""

from __future__ import annotations

import struct


def elf_section(blob: bytes, wanted: str) -> bytes | None:
    """The bytes of one section of a 64-bit little-endian ELF file (a cubin), or None."""
    return elf_sections(blob).get(wanted)


def elf_sections(blob: bytes) -> dict[str, bytes]:
    """Every section of a 64-bit little-endian ELF file (a cubin) by name; {} for anything else."""
    if len(blob) < 64 or blob[:4] != b"\x7fELF" or blob[4] != 2 or blob[5] != 1:
        return {}
    shoff = struct.unpack_from("<Q", blob, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", blob, 0x3A)

    def header(i: int) -> tuple[int, int, int]:
        name, _, _, _, offset, size = struct.unpack_from("<IIQQQQ", blob, shoff + i * shentsize)
        return name, offset, size

    out = {}
    try:
        _, names_at, names_size = header(shstrndx)
        names = blob[names_at : names_at + names_size]
        for i in range(shnum):
            name, offset, size = header(i)
            end = names.find(b"\0", name)
            out[names[name:end].decode("ascii", "replace")] = blob[offset : offset + size]
    except struct.error:
        return {}
    return out
