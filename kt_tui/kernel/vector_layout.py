"""Where pycuda puts a CUDA vector passed by value: kernel_tuner's pycuda backend packs the arguments
into one buffer at the alignment of each one's numpy type, a structured scalar (a vector of more than
8 bytes: float4, double2, float3) at no alignment at all, where CUDA aligns the parameter (float4: to
16). After parameters that do not end at such a multiple, the kernel reads the vector at another
offset. cupy hands the driver each argument's bytes, which it places itself. kernel_tuner's nvcuda
backend gives cuda-python a ctypes type per argument, and cuda-python takes no struct: there only a
vector of 1, 2, 4 or 8 bytes (passed as an unsigned word, kernel/inputs.py vector_value) can go."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .conditions import Macros, compiled_text
from .draft_roles import template_params
from .kernels import Param
from .source import Kernel, find_kernels
from .spec_keys import DTYPES
from .syntax import strip_comments
from .vectors import BYTES, param_vector, vector_bytes, vector_scalar

_ALIAS = re.compile(
    r"\btypedef\s+(?:const\s+)?(\w+)\s+(\w+)\s*;|\busing\s+(\w+)\s*=\s*(?:const\s+)?(\w+)\s*;"
    r"|^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+(\w+)[ \t]*$",
    re.MULTILINE,
)


def _vector(base_type: str, aliases: dict[str, str]) -> str | None:
    """The CUDA vector type of a parameter's type, through the names the source gives one
    (`typedef float4 vec4;`, `using vec4 = float4;`, `#define VEC float4`, four deep at most)."""
    name = base_type.replace("const ", "").strip()
    for _ in range(4):
        if name not in aliases:
            break
        name = aliases[name]
    return param_vector(name)


def vector_aliases(source: str, options: Sequence[str] = (), names: Macros | None = None) -> dict[str, str]:
    """Each name the source gives a CUDA vector type, directly or through other names -> that vector
    (`typedef float4 v4; using vec4 = v4;`: v4 and vec4 -> float4). `options`: the spec's compiler
    options, whose -D and -U decide its #ifdefs, and `names` the spec's tune parameters and defines (`_compiled`)."""
    aliases = _aliases(_compiled(source, options, names))
    return {name: vector for name in aliases if (vector := _vector(name, aliases)) is not None}


def _compiled(source: str, options: Sequence[str], names: Macros | None = None) -> str:
    """The first 1 MB of `source` with comments and the groups the compile skips blanked
    (kernel/conditions.py compiled_text, with the spec's `options` and `names`)."""
    text = source[:1_000_000]
    return strip_comments(compiled_text(text, options, names) or text)


def _aliases(clean: str) -> dict[str, str]:
    """Each name `clean` (the source `_compiled`) gives another type -> that type (the first definition standing)."""
    out: dict[str, str] = {}
    for m in _ALIAS.finditer(clean):
        g = m.groups()
        target, name = (g[0], g[1]) if g[0] else (g[3], g[2]) if g[2] else (g[5], g[4])
        out.setdefault(name, target)
    return out


def _kernels(source: str, kernel: str | None) -> list[Kernel]:
    """The source's kernels, only the one named `kernel` (a template's instantiation: its name) when
    given and found; none where the parser cannot read it (its compile says why)."""
    try:
        kernels = find_kernels(source)
    except Exception:  # noqa: BLE001 - a source the parser cannot read: its compile says why
        return []
    named = [k for k in kernels if kernel and k.name == kernel.split("<")[0].strip()]
    return named or kernels


def _instances(source: str, clean: str, kernel: str | None) -> list[tuple[str, tuple[Param, ...]]]:
    """(name, parameters) of each kernel `_kernels` gives, a template kernel once per instantiation
    that counts, its type parameters replaced by the types of that instantiation: the ones `kernel`
    names (`k<float4, 8>`), else each of the explicit instantiations the compile reads (`template
    __global__ void k<float4>(...)` in `clean`, the source `_compiled`); a template kernel with neither as
    written."""
    out: list[tuple[str, tuple[Param, ...]]] = []
    for k in _kernels(source, kernel):
        params = template_params(clean, k.name) if k.templated else None
        given = [kernel.split("<", 1)[1].rsplit(">", 1)[0]] if kernel and "<" in kernel and params else []
        if params and not given:
            pattern = rf"\btemplate\s+(?:__global__\s+)?void\s+{re.escape(k.name)}\s*<([^<>;{{}}]*)>"
            given = [m.group(1) for m in re.finditer(pattern, clean)]
        typed = []
        for args in given:
            parts = [" ".join(a.split()) for a in args.split(",")]
            if params is None or len(parts) != len(params):
                continue
            names = {name: a for (kind, name), a in zip(params, parts, strict=True) if kind == "type"}
            typed.append((f"{k.name}<{', '.join(parts)}>", tuple(_retyped(p, names) for p in k.params)))
        out += typed or [(k.name, k.params)]
    return out


def _retyped(p: Param, names: dict[str, str]) -> Param:
    """`p` with each template type parameter of its type replaced by the type in `names`."""
    ctype = re.sub(r"\b\w+\b", lambda m: names.get(m.group(0), m.group(0)), p.ctype)
    return Param(p.name, ctype)


def pycuda_misplaced(
    source: str, kernel: str | None = None, options: Sequence[str] = (), names: Macros | None = None
) -> str | None:
    """The first vector parameter passed by value that pycuda packs at another offset than CUDA's,
    as "`float4 c` of kernel k" (of the kernel named `kernel` where given); None where each lands
    where CUDA puts it, or where a parameter before it is of a type whose layout is not known here
    (a struct, a template type)."""
    clean = _compiled(source, options, names)
    aliases = _aliases(clean)
    for label, params in _instances(source, clean, kernel):
        cuda = packed = 0
        for p in params:
            name = None if p.is_pointer else _vector(p.base_type, aliases)  # cuDoubleComplex: double2
            vector = vector_scalar(name) if name is not None else None
            if p.is_pointer:
                size = align = loose = 8
            elif name is not None and vector is not None:
                size, align = vector_bytes(name), vector[2]
                loose = align if size in (1, 2, 4, 8) else 1  # an unsigned word, or the struct's bytes
            elif p.base_type in DTYPES:
                size = align = loose = BYTES[DTYPES[p.base_type]]
            else:
                break
            cuda, packed = -(-cuda // align) * align, -(-packed // loose) * loose
            if vector is not None and cuda != packed:
                return f"`{p.ctype} {p.name}` of {label}"
            cuda, packed = cuda + size, packed + size
    return None


def nvcuda_unpassable(
    source: str, kernel: str | None = None, options: Sequence[str] = (), names: Macros | None = None
) -> str | None:
    """The first vector parameter passed by value that kernel_tuner's nvcuda backend cannot pass (one
    of other than 1, 2, 4 or 8 bytes: float3, float4, double2, char3), as "`float4 c` of kernel k" (of
    the kernel named `kernel` where given); None where there is none or the parser cannot read it."""
    clean = _compiled(source, options, names)
    aliases = _aliases(clean)
    for label, params in _instances(source, clean, kernel):
        for p in params:
            name = None if p.is_pointer else _vector(p.base_type, aliases)  # cuDoubleComplex: double2
            if name is not None and vector_bytes(name) not in (1, 2, 4, 8):
                return f"`{p.ctype} {p.name}` of {label}"
    return None
