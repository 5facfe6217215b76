"""Turn a launch spec into the numpy arguments a kernel is called with (deterministic per seed)."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from functools import partial
from typing import Any

import numpy as np

from .expr import evaluate
from .spec import Arg, Spec, SpecError, function_file, random_bounds
from .spec_keys import ROW_LENGTHS, SPIKE_PLACES, SPIKES
from .vectors import LANES, vector_bytes, vector_scalar


def poison_value(dtype: np.dtype[Any]) -> float | int:
    return np.nan if np.issubdtype(dtype, np.floating) else np.iinfo(dtype).max


def load_array(spec: Spec, file: str, name: str, where: str, read_only: bool = False) -> np.ndarray:
    """An array from a .npy, or the array `name` of a .npz, relative to the spec's folder. A .npy
    read only is mapped from the disk, not read into memory."""
    path = spec.file_path(file)
    try:
        if path.suffix == ".npy":
            array: np.ndarray = np.load(path, mmap_mode="r" if read_only else None, allow_pickle=False)
            return array.reshape(-1)
        with np.load(path, allow_pickle=False) as data:
            return np.asarray(data[name]).reshape(-1)
    except KeyError:
        raise SpecError(where, f"{path.name} holds no array named {name!r}") from None
    except (OSError, ValueError) as e:
        raise SpecError(where, f"cannot read {path}: {e}") from None


def make_arg(arg: Arg, sizes: dict[str, int], spec: Spec | None = None, done: dict[str, Any] | None = None) -> Any:
    if arg.vector:
        return vector_value(arg.type, [evaluate(v, sizes) for v in arg.value or ()])  # type: ignore[union-attr]
    dtype = np.dtype(arg.dtype)
    if not arg.is_array:
        return dtype.type(evaluate(arg.value, sizes))
    if arg.init == "file":
        assert spec is not None and arg.file is not None
        return load_array(spec, arg.file, arg.name, f"args ({arg.name}).file", not arg.output).astype(dtype, copy=False)
    if arg.init == "copy":
        assert done is not None and arg.copy_of is not None
        return np.array(done[arg.copy_of], dtype)
    if arg.init in ("function", "rounded"):
        assert spec is not None and arg.function is not None
        made = np.asarray(user_function(spec, arg.function)(dict(sizes)), dtype).reshape(-1)
        return rounded_within(made, arg.lanes) if arg.init == "rounded" else made
    n = int(evaluate(arg.size, sizes)) * arg.lanes
    if arg.init == "zeros":
        return np.zeros(n, dtype)
    if arg.init == "ones":
        return np.ones(n, dtype)
    if arg.init == "range":  # from `low` where given (a stronger case: -1, 0, 1, ...)
        start = int(evaluate(arg.low, sizes)) if arg.low is not None else 0
        return (np.arange(n) + start).astype(dtype)
    if arg.init == "constant":
        return np.full(n, arg.value, dtype)
    if arg.init == "poison":
        return np.full(n, poison_value(dtype), dtype)
    if arg.init == "offsets":
        return row_offsets(arg, n, sizes)
    if arg.init == "whole":
        low, high = random_bounds(arg, sizes)
        return np.random.default_rng(arg.seed).integers(int(low), int(high), n).astype(dtype)
    if arg.init == "spikes":
        return spiked_rows(arg, n, sizes)
    if arg.init == "ties":
        return tie_values(arg, n)
    if arg.init == "lifted":
        out = make_arg(replace(arg, init="random", value=None), sizes)
        out[1::2] += np.asarray(int(evaluate(arg.value, sizes)), out.dtype)
        return out
    out, fills = random_fills(arg, n, sizes)
    for fill in fills:
        fill()
    return out


def rounded_within(values: np.ndarray, lanes: int) -> np.ndarray:
    """Floats rounded to whole numbers within the whole numbers of their own range, lane by lane (a
    float4's x, y, z, w each): a monotone map, so sorted values stay sorted, signs stay, and no value
    leaves the range the user's Python drew it in; a lane whose range holds no whole number is kept,
    and so is a strictly increasing or decreasing lane that rounding would tie (breakpoints, bin
    bounds: an interval of width zero has no one right answer, a correct kernel's is not the
    original's)."""
    out = values.reshape(-1, lanes).copy() if values.size % lanes == 0 else values.reshape(-1, 1).copy()
    for k in range(out.shape[1]):
        column = out[:, k]
        finite = column[np.isfinite(column)]
        if finite.size == 0:
            continue
        low, high = np.ceil(finite.min()), np.floor(finite.max())
        if low > high:
            continue
        rounded = np.clip(np.rint(column), low, high)
        if _strict(column) and not _strict(rounded):
            continue
        out[:, k] = rounded
    return out.reshape(-1)


def _strict(column: np.ndarray) -> bool:
    """Whether `column` is strictly increasing or strictly decreasing (two values or more)."""
    steps = np.diff(column)
    return column.size > 1 and bool(np.all(steps > 0) or np.all(steps < 0))


def vector_dtype(name: str) -> np.dtype[np.void]:
    """A CUDA vector type's struct as a numpy structured dtype: lanes x, y, z, w at CUDA's offsets, its
    size CUDA's (double3: 24 bytes)."""
    found = vector_scalar(name)
    assert found is not None, name
    component, lanes, _ = found
    stored = "uint16" if component == "bfloat16" else component  # a bfloat16's bits (bf16_bits)
    step = np.dtype(stored).itemsize
    return np.dtype(
        {
            "names": list(LANES[:lanes]),
            "formats": [stored] * lanes,
            "offsets": [k * step for k in range(lanes)],
            "itemsize": vector_bytes(name),
        }
    )


def vector_value(name: str, lanes: list[Any]) -> np.generic:
    """A vector scalar (`float2 c` by value) as kernel_tuner passes a scalar, a numpy scalar holding
    the CUDA struct's bytes: of 1, 2, 4 or 8 bytes an unsigned integer of that size, whose alignment
    is the struct's too (float2: 8 bytes aligned to 8; every backend takes it: pycuda packs it at its
    alignment, cupy and cuda-python hand the driver its bytes); else (float4, double2, float3) the
    structured scalar itself, whose numpy alignment is its component's. A bfloat16 lane holds its
    value's bfloat16 bits (bf16_bits)."""
    struct = np.zeros((), vector_dtype(name))
    bf16 = (vector_scalar(name) or ("",))[0] == "bfloat16"
    for lane, v in zip(struct.dtype.names or (), lanes, strict=True):
        struct[lane] = bf16_bits(v) if bf16 else v
    size = struct.dtype.itemsize
    if size in (1, 2, 4, 8):
        word: np.generic = np.frombuffer(struct.tobytes(), np.dtype(f"u{size}"))[0]
        return word
    value: np.generic = struct[()]  # type: ignore[assignment]  # numpy types a 0-d index as an array
    return value


def bf16_bits(value: float) -> int:
    """The 16 bits of `value` as a bfloat16: the float32's upper half, rounded to the nearest (ties to
    even) as CUDA's __float2bfloat16 rounds; a NaN stays a NaN."""
    bits = int(np.array(value, np.float32).view(np.uint32))
    if bits & 0x7FFFFFFF > 0x7F800000:
        return (bits >> 16) | 0x40
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF


def bf16_value(bits: int) -> float:
    """The float a bfloat16's 16 bits hold."""
    return float(np.array(bits << 16, np.uint32).view(np.float32))


def row_offsets(arg: Arg, n: int, sizes: dict[str, int]) -> np.ndarray:
    """n offsets that delimit n - 1 rows: from low, non-decreasing, each row's length one of
    ROW_LENGTHS, all of them in every 8 rows in an order drawn from the seed. Once the rows reach
    high - 1 the rest are empty (so only the rows that fit are drawn: the work is bounded by the span)."""
    low, high = random_bounds(arg, sizes)
    top = high - 1
    lengths = np.array(ROW_LENGTHS, np.int64)
    rounds = min(-(-(n - 1) // lengths.size), (top - low) // int(lengths.sum()) + 1)
    steps = np.random.default_rng(arg.seed).permuted(np.tile(lengths, (rounds, 1)), axis=1).reshape(-1)[: n - 1]
    dtype = np.dtype(arg.dtype)
    wide = np.dtype(np.uint64 if dtype == np.uint64 else np.int64)  # holds low + a row's end, of any int type
    ends = np.minimum(np.concatenate(([0], np.cumsum(steps))), min(top - low, 1 << 62)).astype(wide)
    out = np.full(n, top, dtype)
    out[: ends.size] = ends + wide.type(low)
    return out


def spiked_rows(arg: Arg, n: int, sizes: dict[str, int]) -> np.ndarray:
    """Normal values with one large value in each row of `value` elements: row r's at the first, the
    last, the second, the middle or the one before the last place (r % SPIKE_PLACES), of the size
    SPIKES[r % 3]. A max over a row that misses one element, or reads the next row's first, changes a
    softmax only where one value stands out: exp overflows without the right max."""
    dtype = np.dtype(arg.dtype)
    if dtype.name not in SPIKES or arg.value is None:
        raise SpecError(f"args ({arg.name}).value", 'init = "spikes" needs a float type and value = the row length')
    out = np.random.default_rng(arg.seed).standard_normal(n).astype(dtype)
    width = max(1, int(evaluate(arg.value, sizes)))
    rows = np.arange(n // width)
    places = np.array([0, width - 1, 1, width // 2, width - 2]) % width
    out[rows * width + places[rows % SPIKE_PLACES]] = np.array(SPIKES[dtype.name], dtype)[rows % 3]
    return out


def tie_values(arg: Arg, n: int) -> np.ndarray:
    """n values drawn from 0, +-c and +-r, c = `value` in the array's float type and r the value
    nearest sqrt(|c|) whose square is |c| in that type (sqrt(|c|) where none of its neighbours is):
    an element, a product of two or a square equal to c, or to -c, and a sum of two such equal to 2 c."""
    dtype = np.dtype(arg.dtype)
    if dtype.name not in SPIKES or not isinstance(arg.value, (int, float)) or isinstance(arg.value, bool):
        raise SpecError(f"args ({arg.name}).value", 'init = "ties" needs a float type and value = a number')
    c = dtype.type(arg.value)
    root = dtype.type(np.sqrt(np.abs(c)))
    near = [root]
    for toward in (np.inf, 0):
        step = root
        for _ in range(3):
            step = np.nextafter(step, dtype.type(toward))
            near.append(step)
    r = next((v for v in near if v * v == np.abs(c)), root)
    choices = np.array([0, c, -c, r, -r], dtype)
    return choices[np.random.default_rng(arg.seed).integers(0, choices.size, n)]


GENERATED = ("random", "normal", "uniform", "positive")  # made by numpy, which lets go of the GIL meanwhile
GENERATOR = "chunked-2"  # how random arrays are drawn: stored references taken from other inputs are taken again
CHUNK = 1 << 22  # elements drawn from one generator: large arrays are drawn in parts, on threads


def random_fills(arg: Arg, n: int, sizes: dict[str, int]) -> tuple[np.ndarray, list[Callable[[], None]]]:
    """An empty array for a random argument and the calls that fill it, one per CHUNK elements. Part
    i is drawn from the i-th child of the argument's seed, so the values do not depend on the order
    or the threads the parts are drawn on. Values are drawn in the array's float type, never in
    float64 and then converted (float16 is drawn as float32)."""
    out = np.empty(n, np.dtype(arg.dtype))
    draw = _part_drawer(arg, n, sizes)

    def fill(i: int) -> None:
        draw(i, out[i * CHUNK : (i + 1) * CHUNK])

    return out, [partial(fill, i) for i in range(-(-n // CHUNK) or 1)]


def random_parts(arg: Arg, n: int, sizes: dict[str, int]) -> Iterator[np.ndarray]:
    """The same values as random_fills, one part (CHUNK elements) at a time (an export writes them)."""
    draw = _part_drawer(arg, n, sizes)
    for i in range(-(-n // CHUNK)):
        part = np.empty(min(CHUNK, n - i * CHUNK), np.dtype(arg.dtype))
        draw(i, part)
        yield part


def _part_drawer(arg: Arg, n: int, sizes: dict[str, int]) -> Callable[[int, np.ndarray], None]:
    dtype = np.dtype(arg.dtype)
    floating = np.issubdtype(dtype, np.floating)
    draw_type = dtype if dtype in (np.float32, np.float64) else np.dtype(np.float32)
    normal = floating and (arg.init == "normal" or (arg.init == "random" and arg.low is None and arg.high is None))
    low, high = (0, 0) if normal else random_bounds(arg, sizes)
    children = np.random.SeedSequence(arg.seed).spawn(max(1, -(-n // CHUNK)))

    def draw(i: int, part: np.ndarray) -> None:
        rng = np.random.default_rng(children[i])
        if not floating:
            part[:] = rng.integers(low, high, part.size, dtype=dtype)
            return
        drawn = part if draw_type == dtype else np.empty(part.size, draw_type)
        if normal:
            rng.standard_normal(out=drawn, dtype=draw_type)
        else:
            rng.random(out=drawn, dtype=draw_type)
            drawn *= draw_type.type(high - low)
            drawn += draw_type.type(low)
        if drawn is not part:
            part[:] = drawn

    return draw


def make_args(spec: Spec, sizes: dict[str, int] | None = None) -> list[Any]:
    """The arguments at the spec's sizes, or at `sizes` (a check at another size). The parts of
    every random array are drawn on threads at once (see random_fills)."""
    sizes = dict(sizes or spec.sizes)
    done: dict[str, Any] = {}
    out: list[Any] = [None] * len(spec.args)
    fills: list[Callable[[], None]] = []
    for i, a in enumerate(spec.args):
        if a.is_array and a.init in GENERATED:
            out[i], more = random_fills(a, int(evaluate(a.size, sizes)) * a.lanes, sizes)
            done[a.name] = out[i]
            fills += more
    if len(fills) > 1:
        with ThreadPoolExecutor(min(len(fills), os.cpu_count() or 1, 32)) as pool:
            list(pool.map(lambda fill: fill(), fills))
    elif fills:
        fills[0]()
    for i in sorted(range(len(spec.args)), key=lambda i: spec.args[i].init == "copy"):
        if out[i] is None:
            out[i] = done[spec.args[i].name] = make_arg(spec.args[i], sizes, spec, done)
    return out


_USER_CODE = [False]  # set by allow_user_code() in the GPU worker and its children, nowhere else


def allow_user_code() -> None:
    """This process may import the user's Python: the GPU worker (a process or a Ray actor), the
    sanitizer's and the strength check's children. The app, export and the UI never call it."""
    _USER_CODE[0] = True


def user_function(spec: Spec, ref: str) -> Callable[..., Any]:
    """The user's `module:function` from a .py file next to the spec, in a process that allowed it
    (allow_user_code); elsewhere a SpecError: the app's process never imports the user's Python."""
    if not _USER_CODE[0]:
        raise SpecError(ref, "the user's Python runs only in the GPU worker, not in this process")
    path = function_file(spec, ref)
    loader = importlib.util.spec_from_file_location(f"kt_user_{path.stem}", path)
    if loader is None or loader.loader is None:
        raise SpecError(ref, f"cannot import {path}")
    module = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(module)
    func: Callable[..., Any] = getattr(module, ref.partition(":")[2])
    return func


def reference_outputs(spec: Spec, args: list[Any]) -> dict[str, Any] | None:
    """The spec's expected outputs: from a .npz, or from `module:function` given the inputs by name."""
    ref = spec.reference
    if not isinstance(ref, str) or not ref:
        return None  # none, or a reference kernel (gpu/device runs it)
    if ref.endswith(".npz"):
        return load_named(spec, ref, "reference")
    inputs = {a.name: np.copy(v) for a, v in zip(spec.args, args)}
    out = user_function(spec, ref)(inputs, dict(spec.sizes))
    return {k: np.asarray(v).reshape(-1) for k, v in dict(out).items()}


def load_named(spec: Spec, file: str | None, where: str) -> dict[str, Any] | None:
    """All arrays of a .npz (cmem_args, reference) by name."""
    if not file:
        return None
    path = spec.file_path(file)
    try:
        with np.load(path, allow_pickle=False) as data:
            return {k: np.asarray(data[k]) for k in data.files}
    except (OSError, ValueError) as e:
        raise SpecError(where, f"cannot read {path}: {e}") from None
