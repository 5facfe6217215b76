"""The element type of a kernel's array or scalar parameter as a spec names it, and an array's length
in those elements: CUDA's complex types as float2 / double2, vector types the spec has no name for
(short2, uchar4, float3) as that many components, a struct of one number type as that many numbers."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from . import cuda_ast
from .conditions import Macros, compiled_text
from .kernels import Param
from .source import Kernel
from .spec import DTYPES, VECTORS, Arg
from .spec_model import int_range
from .vectors import COMPLEX, bf16_array, param_vector, vector_scalar

# the vector types a draft names as they are; it writes the others (uchar4, float3, half2) as their components
NAMED = frozenset(f"{c}{n}" for c in ("float", "double", "int", "uint") for n in (2, 4))


def _lanes(base: str) -> tuple[str, int] | None:
    """A vector type a draft does not name as (its component's type, its lanes): short2 is two int16,
    half2 two float16, double4_32a four float64; None for the others (float2 and int4 are NAMED)."""
    found = None if base in NAMED or bf16_array(base) else vector_scalar(base.removeprefix("__"))
    return (found[0], found[1]) if found else None


def _base(p: Param) -> str:
    base = p.base_type.replace("struct ", "").strip()
    m = re.fullmatch(r"(?:\w+::)*complex\s*<\s*(\w+)\s*>", base)  # thrust::complex<float>, complex<T> (T: float)
    return ("double2" if m.group(1) == "double" else "float2") if m else COMPLEX.get(base, base)


INTS = frozenset(f"{u}int{b}" for u in ("", "u") for b in (8, 16, 32, 64))


def int_lane(dtype: str) -> str | None:
    """The numpy integer type of an integer dtype's values: the dtype itself (int32, uint8) or an integer
    vector's lanes (uint2: uint32, int4: int32); None for a float or float vector. A name's prefix says
    neither: "uint2" starts with "uint" and is no numpy type."""
    lane = VECTORS[dtype][0] if dtype in VECTORS else dtype
    return lane if lane in INTS else None


def is_int(dtype: str) -> bool:
    """Whether `dtype`'s values (each lane's, for a vector) are integers."""
    return int_lane(dtype) is not None


def is_signed(dtype: str) -> bool:
    """Whether `dtype`'s values (each lane's, for a vector) are signed integers."""
    return (int_lane(dtype) or "u").startswith("int")


def is_unsigned(dtype: str) -> bool:
    """Whether `dtype`'s values (each lane's, for a vector) are unsigned integers."""
    return (int_lane(dtype) or "").startswith("uint")


def as_bytes(p: Param) -> bool:
    """Whether an array of uint8 elements is a struct of mixed fields passed as its bytes, not numbers
    (uint8_t, or a vector of bytes: uchar4)."""
    base = _base(p)
    return base not in DTYPES and not _lanes(base)


def element_type(p: Param) -> str:
    base = _base(p)
    return DTYPES.get(base) or (base if base in NAMED else (_lanes(base) or ("float32", 1))[0])


def array_of(p: Param, unit: cuda_ast.Unit, size: str, guesses: list[tuple[str, str]]) -> tuple[str, str]:
    """The element type and length of an array argument: float3 is three floats an element, a struct
    of one number type that many of them, a struct of mixed fields its bytes."""
    base = _base(p)
    wrap = size if re.fullmatch(r"\w+", size) else f"({size})"
    if lanes := _lanes(base):
        return lanes[0], f"{lanes[1]}*{wrap}" if lanes[1] > 1 else size
    dtype, count = unit.structs.get(base, (None, 0))
    if dtype:
        return dtype, f"{count}*{wrap}" if count > 1 else size
    if dtype == "":
        guesses.append((f"args.{p.name}", f"struct {base} mixes number types: passed as its {count} bytes"))
        return "uint8", f"{count}*{wrap}"
    if bf16_array(base):
        guesses.append((f"args.{p.name}", bf16_refused(p.name, base)))
    elif base not in DTYPES and base not in VECTORS and base not in ("T", "real", "real_t", "scalar_t"):
        guesses.append(
            (
                f"args.{p.name}",
                (
                    f"{base} is not a number type: drafted as float32 elements; "
                    "give its type or a size in its element type"
                ),
            )
        )
    return element_type(p), size


FLOAT_LANES = (1.25, 0.625, 1.75, 0.375)  # apart from each other: a kernel that mixes up x and y fails
INT_LANES = (2, 3, 5, 7)  # rising: a box (x0, y0, x1, y1) of them holds something


def vector_arg(p: Param) -> tuple[Arg, str] | None:
    """A CUDA vector type passed by value (`float2 c`, `uchar4 color`, `cuComplex z`) as a scalar of that
    type, each lane its own value, and why; None for any other parameter."""
    base = None if p.is_pointer else param_vector(_base(p))
    found = None if base is None else vector_scalar(base)
    if base is None or found is None:
        return None
    dtype, lanes, _ = found
    values = (FLOAT_LANES if "float" in dtype else INT_LANES)[:lanes]
    why = f"{list(values)}: its {lanes} lanes apart from each other, so a kernel that mixes them up fails"
    if dtype == "bfloat16":
        why = (
            f"{list(values) if lanes > 1 else values[0]}: passed as "
            + ("each lane's" if lanes > 1 else "its")
            + f" bfloat16 bits ({p.base_type} by value, {2 * lanes} bytes)"
            + ("; its lanes apart, so a kernel that mixes them up fails" if lanes > 1 else "")
        )
    return Arg(name=p.name, type=base, init="constant", value=values), why


def bf16_refused(name: str, base: str) -> str:
    """Why an array of bfloat16s is drafted wrong: kt-tui makes arrays with numpy, which has no bfloat16."""
    return (
        f"NOT PASSABLE: {name} is an array of {base}, and a spec's array is of a numpy type, which has no "
        "bfloat16: the float32 drafted here is not its bytes, and the check refuses it; have the kernel take "
        'float or half, or give its bits as type = "uint16" from a file'
        + (", two an element" if base.endswith("162") else "")
    )


def struct_by_value(p: Param, unit: cuda_ast.Unit) -> str | None:
    """Why a struct passed by value (`Params p`, `dim3 grid`) is drafted wrong: a spec's scalar is a number
    or a CUDA vector type, never a struct's bytes; None for any other parameter."""
    base = _base(p)
    if p.is_pointer or base in DTYPES or vector_scalar(base.removeprefix("__")) is not None:
        return None
    dtype, count = unit.structs.get(base, ("", 12 if base == "dim3" else 0))
    if not count or dtype and count == 1:  # one number (a type parameter is one): drafted as that
        return None
    return (
        f"NOT PASSABLE: {p.name} is a struct {base} passed by value, and a spec passes a scalar as a number or "
        "a CUDA vector type (float2, int4, ...) only: the float32 drafted here is not its bytes, so the kernel "
        f"reads garbage; pass {base}'s fields as parameters of their own, or a pointer to it"
    )


def typed_params(kernel: Kernel, types: dict[str, str]) -> Kernel:
    """`kernel` with each name in `types` (a template type parameter, an alias) in its parameters' types replaced
    by the type `types` gives it."""
    params = kernel.params
    for name, ctype in types.items():
        params = tuple(Param(p.name, re.sub(rf"\b{re.escape(name)}\b", ctype, p.ctype)) for p in params)
    return replace(kernel, params=params)


def launch_shapes(kernel: Kernel) -> Kernel:
    """`kernel` with an array of dim3 (a launch shape: three unsigned ints, laid out as uint3 is) taken as
    one of uint3, so that its lanes are drafted as the integers they are. A dim3 by value stays a struct
    (struct_by_value)."""
    params = tuple(Param(p.name, re.sub(r"\bdim3\b", "uint3", p.ctype)) if p.is_pointer else p for p in kernel.params)
    return replace(kernel, params=params)


def compiled_structs(unit: cuda_ast.Unit, src: str, options: Sequence[str], names: Macros | None) -> None:
    """`unit`'s structs as the groups of `src` the compile reads define them (kernel/conditions.py, with the
    spec's `options` and `names`), where it skips some: the parse reads every group, the last one written
    standing (`#if 1` float ... `#else` double ...: double)."""
    if len(src) > 1_000_000 or len(src.encode("utf-8", "replace")) > cuda_ast.MAX_SOURCE:
        return
    live = compiled_text(src, options, names)
    if live is not None:
        unit.structs.update(cuda_ast.parse(live).structs)


def whole_range(dtype: str) -> tuple[int, int]:
    """A draw's [low, high) over every value of an integer dtype (high is one past its greatest)."""
    least, most = int_range(int_lane(dtype) or dtype)
    return least, most + 1
