"""<kernel>.inputs.npz: the arguments at the spec's sizes (the same seeds kt-tui used) and the
original kernel's stored reference outputs, written a piece at a time: an export holds about one
piece of an array in memory, not the array (a session's inputs can be gigabytes)."""

from __future__ import annotations

import mmap
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ..files import open_output
from ..kernel.expr import evaluate
from ..kernel.inputs import GENERATED, make_arg, poison_value, random_parts
from ..kernel.spec import Arg, Spec
from .bundle import Bundle
from .npz import NpzWriter

PIECE = 1 << 18  # elements made and written at once
FILLS = ("zeros", "ones", "range", "constant", "poison")


def write_inputs(b: Bundle, path: Path, piece: int = PIECE) -> Path:
    return write_arrays(b.spec, b.data.reference(b.original["id"]), path, piece)


def not_made(spec: Spec) -> dict[int, str]:
    """The arguments an export does not make, by position, each with its recipe: those the user's
    Python makes (it runs only in the GPU worker, issue 36 item 3), rounded or not, and copies of them."""
    out: dict[int, str] = {}
    for i, a in enumerate(spec.args):
        if a.init in ("function", "rounded"):
            out[i] = f'args[{i}] ({a.name}): init = "{a.init}", function = "{a.function}"'
    for _ in spec.args:  # copies of copies
        for i, a in enumerate(spec.args):
            src = next((k for k, b in enumerate(spec.args) if b.name == a.copy_of), None)
            if a.init == "copy" and src in out and i not in out:
                out[i] = f"args[{i}] ({a.name}): a copy of {out[src]}"
    return out


def write_arrays(spec: Spec, ref: dict[str, Any] | None, path: Path, piece: int = PIECE) -> Path:
    """The arguments of `spec` (but those not_made) and the outputs of `ref` that are outputs of
    `spec` (no store: it may run on a thread of its own)."""
    sizes = dict(spec.sizes)
    skipped = not_made(spec)
    whole: dict[str, Any] = {}  # copied arguments that could not be made in pieces
    copied = {a.copy_of for a in spec.args if a.init == "copy"}
    by_name = {a.name: a for a in spec.args}
    order = sorted(range(len(spec.args)), key=lambda i: spec.args[i].init == "copy")
    with open_output(path, binary=True) as f:
        npz = NpzWriter(f.fileno())
        for i in order:
            a = spec.args[i]
            if i in skipped:
                continue
            made = pieces(a, sizes, by_name, whole, piece)
            if made is None:
                value = np.asarray(make_arg(a, sizes, spec, whole), order="C")
                if a.name in copied:
                    whole[a.name] = value
                npz.add(f"arg{i}", value.dtype, value.shape, [value])
            else:
                dtype, n, parts = made
                npz.add(f"arg{i}", dtype, (n,), (np.ascontiguousarray(p) for p in parts))
        for i, a in enumerate(spec.args):
            if a.output and ref and a.name in ref:
                npz.add(f"answer{i}", *_stored(ref[a.name]))
        npz.close()
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


def _stored(value: Any) -> tuple[np.dtype[Any], tuple[int, ...], Iterable[Any]]:
    """A stored reference output's dtype, shape and bytes: an array mapped whole from its .npy is read
    from the file a piece at a time (the mapped pages would count in the export's memory)."""
    mapped = isinstance(value, np.memmap) and isinstance(value.base, mmap.mmap) and value.filename
    if mapped and value.flags.c_contiguous:
        return value.dtype, value.shape, _read(value.filename, value.offset, value.nbytes)
    array = np.asarray(value, order="C")
    return array.dtype, array.shape, [array]


def _read(filename: str, offset: int, nbytes: int) -> Iterator[bytes]:
    with open(filename, "rb") as src:
        src.seek(offset)
        left = nbytes
        while left > 0 and (chunk := src.read(min(left, 1 << 22))):
            yield chunk
            left -= len(chunk)
