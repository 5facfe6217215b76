"""CUDA's vector types passed by value (`float2 c`, `uchar4 color`): a scalar argument of 1 to 4
components named x, y, z, w, laid out as CUDA lays out the struct (its size and alignment: float2 is
8 bytes aligned to 8, float4 16 aligned to 16, float3 12 aligned to 4). A spec gives it as
`type = "float2"` with `value = [1.5, -0.25]`, one value (or size expression) a lane. cuda_bf16.h's
__nv_bfloat16 and __nv_bfloat162 by value are the spec's "bfloat16" (one lane) and "bfloat162": each
lane's float rounded to bfloat16 (kernel/inputs.py bf16_bits); numpy has no bfloat16, so no array of
them is passable."""

from __future__ import annotations

import re

COMPONENTS = {
    "char": "int8", "uchar": "uint8", "short": "int16", "ushort": "uint16", "int": "int32", "uint": "uint32",
    "long": "int64", "ulong": "uint64", "longlong": "int64", "ulonglong": "uint64", "float": "float32",
    "double": "float64",
}  # fmt: skip
BYTES = {"int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int32": 4, "uint32": 4, "int64": 8, "uint64": 8,
          "float16": 2, "bfloat16": 2, "float32": 4, "float64": 8}  # fmt: skip
COMPLEX = {  # complex types of CUDA's headers: pairs of floats or doubles, as float2 and double2 are
    "cuFloatComplex": "float2",
    "cuComplex": "float2",
    "cufftComplex": "float2",
    "cuDoubleComplex": "double2",
    "cufftDoubleComplex": "double2",
}
_HALF2 = ("half2", "__half2")
BF16 = {"bfloat16": 1, "bfloat162": 2}  # the lanes of each, nv_ spellings too (nv_bfloat162)
LANES = "xyzw"


def vector_scalar(name: str) -> tuple[str, int, int] | None:
    """(the component's numpy dtype, the lanes, the alignment in bytes) of a CUDA vector type's name,
    None for any other name. A vector of 1, 2 or 4 lanes is aligned to its size (16 at most), one of
    3 to its component."""
    name = name.strip()
    if name in _HALF2:
        return "float16", 2, 4
    if lanes := BF16.get(name.removeprefix("nv_"), 0):
        return "bfloat16", lanes, 2 * lanes
    m = re.fullmatch(r"([a-z]+?)([1-4])(?:_(16|32)a)?", name)  # double4_32a: CUDA 13's aligned to 32
    if not m or m.group(1) not in COMPONENTS:
        return None
    dtype, lanes = COMPONENTS[m.group(1)], int(m.group(2))
    size = BYTES[dtype]
    if m.group(3):
        return (dtype, lanes, int(m.group(3))) if lanes == 4 and size == 8 else None
    return dtype, lanes, size if lanes == 3 else min(16, size * lanes)


def vector_bytes(name: str) -> int:
    """The struct's size: its lanes' bytes rounded up to its alignment (double3: 24, char3: 3)."""
    found = vector_scalar(name)
    assert found is not None, name
    dtype, lanes, align = found
    return -(-BYTES[dtype] * lanes // align) * align


def known_vectors() -> list[str]:
    """The names a vector scalar's `type` may be, shortest first (for an error message)."""
    return [f"{c}{n}" for c in COMPONENTS for n in (2, 4)] + ["half2", *BF16]


def param_vector(base_type: str) -> str | None:
    """The CUDA vector type a parameter passed by value is (`const float2`: float2, `__half2`: half2,
    cuComplex: float2, `__nv_bfloat16`: bfloat16), None for any other type."""
    base = base_type.replace("struct ", "").strip()
    base = COMPLEX.get(base, base).removeprefix("__").removeprefix("nv_")
    return base if vector_scalar(base) is not None else None


# every CUDA vector type's name (a template kernel instantiated for one: kernel/draft.py)
VECTOR_NAMES = {f"{c}{n}": f"{c}{n}" for c in COMPONENTS for n in range(1, 5)} | {h: h for h in _HALF2}


def bf16_array(base_type: str) -> bool:
    """Whether an array of this element type is one of bfloat16s (`__nv_bfloat16 *`, `nv_bfloat162 *`)."""
    return base_type.replace("const ", "").strip().removeprefix("__").removeprefix("nv_") in BF16


def vector_parts(name: str) -> tuple[str, int]:
    """(the component's numpy dtype, the lanes) of a CUDA vector type's name."""
    found = vector_scalar(name.removeprefix("__"))
    assert found is not None, name
    return found[0], found[1]
