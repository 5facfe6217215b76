"""<kernel>.inputs.npz: the arguments at the spec's sizes (the same seeds kt-tui used) and the
original kernel's stored reference outputs, written a piece at a time: an export holds about one
piece of an array in memory, not the array (a session's inputs can be gigabytes)."""

from __future__ import annotations

import mmap
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ..files import open_output
from ..kernel.expr import evaluate
from ..kernel.inputs import GENERATED, make_arg, poison_value, random_parts
from ..kernel.spec import Arg, Spec
from .bundle import Bundle

PIECE = 1 << 18  # elements made and written at once
FILLS = ("zeros", "ones", "range", "constant", "poison")


def write_inputs(b: Bundle, path: Path, piece: int = PIECE) -> Path:
    return write_arrays(b.spec, b.data.reference(b.original["id"]), path, piece)


def write_arrays(spec: Spec, ref: dict[str, Any] | None, path: Path, piece: int = PIECE) -> Path:
    """The arguments of `spec` and the outputs of `ref` that are outputs of `spec` (no store: it may
    run on a thread of its own)."""
    sizes = dict(spec.sizes)
    whole: dict[str, Any] = {}  # copied arguments that could not be made in pieces
    copied = {a.copy_of for a in spec.args if a.init == "copy"}
    by_name = {a.name: a for a in spec.args}
    order = sorted(range(len(spec.args)), key=lambda i: spec.args[i].init == "copy")
    with open_output(path, binary=True) as f, zipfile.ZipFile(f, "w", zipfile.ZIP_STORED, allowZip64=True) as npz:
        for i in order:
            a = spec.args[i]
            made = pieces(a, sizes, by_name, whole, piece)
            if made is None:
                value = np.asarray(make_arg(a, sizes, spec, whole))
                if a.name in copied:
                    whole[a.name] = value
                _add_array(npz, f"arg{i}", value)
            else:
                _add_pieces(npz, f"arg{i}", *made)
        for i, a in enumerate(spec.args):
            if a.output and ref and a.name in ref:
                _add_stored(npz, f"answer{i}", ref[a.name])
    return path


def pieces(
    arg: Arg, sizes: dict[str, int], by_name: dict[str, Arg], whole: dict[str, Any], piece: int
) -> tuple[np.dtype[Any], int, Iterator[np.ndarray]] | None:
    """The dtype, length and pieces of an array kernel/inputs.make_arg would make, the same values;
    None when it is made whole (a scalar, a file, a user's function, a copy of one of those)."""
    if not arg.is_array:
        return None
    dtype = np.dtype(arg.dtype)
    if arg.init == "copy":
        src = by_name.get(arg.copy_of or "")
        if src is None or arg.copy_of in whole:
            return None
        made = pieces(src, sizes, by_name, whole, piece)
        if made is None:
            return None
        _, n, parts = made
        return dtype, n, (np.array(p, dtype) for p in parts)
    if arg.init not in FILLS and arg.init not in GENERATED:
        return None
    n = int(evaluate(arg.size, sizes)) * arg.lanes
    return dtype, n, _made(arg, dtype, n, sizes, piece)


def _made(arg: Arg, dtype: np.dtype[Any], n: int, sizes: dict[str, int], piece: int) -> Iterator[np.ndarray]:
    """make_arg's values piece by piece (random ones in the parts make_arg draws them in)."""
    if arg.init in GENERATED:
        yield from random_parts(arg, n, sizes)
        return
    draw = _draw(arg, dtype)
    for start in range(0, n, piece):
        yield draw(start, min(piece, n - start))


def _draw(arg: Arg, dtype: np.dtype[Any]) -> Any:
    init = arg.init
    if init == "zeros":
        return lambda start, k: np.zeros(k, dtype)
    if init == "ones":
        return lambda start, k: np.ones(k, dtype)
    if init == "range":
        return lambda start, k: np.arange(start, start + k).astype(dtype)
    if init == "constant":
        return lambda start, k: np.full(k, arg.value, dtype)
    return lambda start, k: np.full(k, poison_value(dtype), dtype)


def _header(f: Any, dtype: np.dtype[Any], shape: tuple[int, ...]) -> None:
    np.lib.format.write_array_header_2_0(
        f, {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False, "shape": shape}
    )


def _add_pieces(npz: zipfile.ZipFile, name: str, dtype: np.dtype[Any], n: int, parts: Iterator[np.ndarray]) -> None:
    with npz.open(f"{name}.npy", "w", force_zip64=True) as f:
        _header(f, dtype, (n,))
        for p in parts:
            f.write(np.ascontiguousarray(p).data.cast("B"))


def _add_array(npz: zipfile.ZipFile, name: str, value: np.ndarray) -> None:
    with npz.open(f"{name}.npy", "w", force_zip64=True) as f:
        np.lib.format.write_array(f, value, allow_pickle=False)


def _add_stored(npz: zipfile.ZipFile, name: str, value: Any) -> None:
    """A stored reference output: an array mapped whole from its .npy is copied from the file by
    reads (the mapped pages would count in the export's memory); any other is written as it is."""
    mapped = isinstance(value, np.memmap) and isinstance(value.base, mmap.mmap) and value.filename
    if mapped and value.flags.c_contiguous:
        with npz.open(f"{name}.npy", "w", force_zip64=True) as f, open(value.filename, "rb") as src:
            _header(f, value.dtype, value.shape)
            src.seek(value.offset)
            left = value.nbytes
            while left > 0 and (chunk := src.read(min(left, 1 << 22))):
                f.write(chunk)
                left -= len(chunk)
        return
    _add_array(npz, name, np.asarray(value))
