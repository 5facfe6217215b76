"""A first-guess launch spec from a kernel's source, for the user to correct before anything runs.

Read from the body: the rank (blockIdx.y / .z), the int scalars used as bounds (`if (x < nx)`), the
`#define`d sizes, the pointers written (outputs), and the int pointers used as subscripts (indices).
"""

from __future__ import annotations

import re

from .source import Kernel, strip_comments
from .spec import DTYPES, VECTORS, Arg, Spec

_SIZE_NAMES = re.compile(r"^(n|N|size|len|length|num|count|n_?elements|num_?elements)$")
_DEFINE = re.compile(r"(?m)^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+\(?[ \t]*(\d+)[ \t]*\)?[ \t]*$")
_AXES = ("x", "y", "z")
FLOAT_SCALAR = 1.5  # not 0 or 1, so a multiply or add by it changes the result


def kernel_body(src: str, kernel: Kernel) -> str:
    """The text of the kernel's body (comments blanked), or "" when only declared."""
    clean = strip_comments(src)
    m = re.search(r"__global__[^;{]*?\b" + re.escape(kernel.name) + r"\s*\(", clean)
    if not m:
        return ""
    start = clean.find("{", m.end())
    semi = clean.find(";", m.end())
    if start < 0 or 0 <= semi < start:
        return ""
    depth = 0
    for i in range(start, len(clean)):
        depth += {"{": 1, "}": -1}.get(clean[i], 0)
        if depth == 0:
            return clean[start:i + 1]
    return clean[start:]


def defined_sizes(src: str) -> dict[str, int]:
    """`#define NAME 1024` lines (integers above 1), not guarded by #ifndef NAME (those are tunable)."""
    clean = strip_comments(src)
    guarded = set(re.findall(r"#[ \t]*ifndef[ \t]+([A-Za-z_]\w*)", clean))
    return {k: int(v) for k, v in _DEFINE.findall(clean) if int(v) > 1 and k not in guarded}


def written_pointers(body: str, kernel: Kernel) -> list[str]:
    """Pointer parameters assigned to in the body: `p[...] =`, `p[...] += `, `*p =`, atomics on them."""
    out = []
    for p in kernel.params:
        if not p.is_pointer or not p.name:
            continue
        n = re.escape(p.name)
        if (re.search(rf"\b{n}\s*\[[^;]*?\]\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)", body)
                or re.search(rf"\*\s*\(?\s*{n}\b[^;=]*?\)?\s*(?:[-+*/]?)=(?!=)", body)
                or re.search(rf"atomic\w*\s*\(\s*&?\s*{n}\b", body)):
            out.append(p.name)
    return out


def read_pointers(body: str, kernel: Kernel) -> list[str]:
    """Pointer parameters whose elements are read somewhere (not only assigned to)."""
    out = []
    for p in kernel.params:
        if not p.is_pointer or not p.name:
            continue
        for m in re.finditer(rf"\b{re.escape(p.name)}\b", body):
            rest = body[m.end():]
            sub = re.match(r"\s*\[", rest)
            if sub:
                close = _match_bracket(rest, sub.end() - 1)
                rest = rest[close + 1:] if close >= 0 else ""
            if not re.match(r"\s*=(?!=)", rest):
                out.append(p.name)
                break
    return out


def _match_bracket(text: str, at: int) -> int:
    depth = 0
    for i in range(at, len(text)):
        depth += {"[": 1, "]": -1}.get(text[i], 0)
        if depth == 0:
            return i
    return -1


def accumulated(body: str, kernel: Kernel) -> list[str]:
    """Pointers only added to (`p[i] += ...`, atomicAdd(&p[i], ...)): they must start at zero."""
    return [p.name for p in kernel.params if p.is_pointer and p.name
            and re.search(rf"(\b{re.escape(p.name)}\s*\[[^;]*?\]\s*\+=|atomic\w*\s*\(\s*&?\s*{re.escape(p.name)}\b)", body)
            and not re.search(rf"\b{re.escape(p.name)}\s*\[[^;]*?\]\s*=(?!=)", body)]


def index_pointers(body: str, kernel: Kernel) -> list[str]:
    """Int pointers read in the body: index arrays (`x[col_idx[j]]`, `x + cols[j]`, row offsets), bounded."""
    written = set(written_pointers(body, kernel))
    return [p.name for p in kernel.params
            if p.is_pointer and p.name and p.name not in written
            and DTYPES.get(p.base_type, "").startswith(("int", "uint"))
            and re.search(rf"\b{re.escape(p.name)}\s*\[", body)]


def _bounds(body: str, kernel: Kernel) -> list[str]:
    """Int scalar parameters compared against (`i < n`, `y >= height`), in order of first use."""
    ints = [p.name for p in kernel.params if not p.is_pointer and p.name
            and DTYPES.get(p.base_type, "").startswith(("int", "uint"))]
    used = []
    for m in re.finditer(r"([A-Za-z_]\w*)?\s*\)?\s*(?<![<>])(?:<=?|>=?)(?![<>])\s*\(?\s*([A-Za-z_]\w*)?", body):
        for name in (m.group(1), m.group(2)):
            if name in ints and name not in used:
                used.append(name)
    return used


def _axis(name: str) -> int:
    """0 for x-like names (width, cols, nx), 1 for y-like, 2 for z-like, 3 unknown."""
    low = name.lower()
    for axis, words in enumerate((("width", "col", "nx", "_x", "w"), ("height", "row", "ny", "_y", "h"),
                                  ("depth", "nz", "_z", "d"))):
        if any(low.endswith(w) or low.startswith(w) for w in words):
            return axis
    return 3


def rank_of(body: str) -> int:
    if re.search(r"blockIdx\s*\.\s*z|block_size_z", body):
        return 3
    if re.search(r"blockIdx\s*\.\s*y|block_size_y", body):
        return 2
    return 1


def draft_spec(kernel: Kernel, n: int = 1 << 20, src: str = "") -> Spec:
    """The guess: rank, sizes, outputs (poisoned), inputs (random; index arrays bounded)."""
    body = kernel_body(src, kernel) if src else ""
    rank = rank_of(body) if body else 1
    defined = defined_sizes(src) if src else {}
    bounds = _bounds(body, kernel) if body else []
    side = {1: n, 2: 1024, 3: 128}[rank]
    dims = sorted(bounds, key=_axis)[:rank] or sorted(defined, key=_axis)[:rank]
    if dims and not bounds and len(defined) < rank:  # one #define for a square problem (WIDTH x WIDTH)
        dims += [dims[-1]] * (rank - len(dims))
    dims += [f"n{_AXES[i]}" if rank > 1 else "n" for i in range(len(dims), rank)]
    sizes = {d: defined.get(d, side) for d in dims}
    for d in bounds:
        sizes[d] = side
    for k, v in defined.items():
        sizes.setdefault(k, v)
    total = "*".join(dims) if rank > 1 else dims[0]
    bounds = [d for d in bounds if d not in dims]
    written = written_pointers(body, kernel) if body else []
    indices = index_pointers(body, kernel) if body else []
    args: list[Arg] = []
    for p in kernel.params:
        dtype = DTYPES.get(p.base_type) or (p.base_type if p.base_type in VECTORS else "float32")
        if p.is_pointer:
            is_out = p.name in written if body else "const" not in p.ctype.split("*")[0]
            if not is_out:
                init = "random"
            elif p.name in accumulated(body, kernel):
                init = "zeros"
            else:  # read and written (y = a * x + y): it needs real values; written only: poison shows gaps
                init = "random" if body and p.name in read_pointers(body, kernel) else "poison"
            arg = Arg(name=p.name, type=dtype, size=total, init=init,
                      seed=len(args) + 1, output=is_out)
            if p.name in indices:
                arg.low, arg.high = 0, dims[0]
            args.append(arg)
        elif dtype.startswith(("int", "uint")):
            if p.name in sizes:
                value = p.name
            elif not body and (_SIZE_NAMES.match(p.name) or not any(a.value == "n" for a in args)):
                value = dims[0]
            else:
                value = 1
            args.append(Arg(name=p.name, type=dtype, init="constant", value=value))
        else:
            args.append(Arg(name=p.name, type=dtype, init="constant", value=FLOAT_SCALAR))
    if args and not any(a.output for a in args):
        for a in args:
            if a.is_array:
                a.output, a.init = True, "poison"
                break
    tune = {"block_size_x": [32, 64, 128, 256, 512, 1024]} if rank == 1 else \
        {"block_size_x": [16, 32, 64, 128], "block_size_y": [1, 2, 4, 8, 16]}
    defaults = {"block_size_x": 256} if rank == 1 else {"block_size_x": 32, "block_size_y": 4}
    if rank == 3:
        tune["block_size_z"], defaults["block_size_z"] = [1, 2, 4], 1
    return Spec(
        kernel=kernel.name, args=args, problem_size=list(dims), sizes=sizes, tune_params=tune, defaults=defaults,
        grid_div_y=["block_size_y"] if rank > 1 else None, grid_div_z=["block_size_z"] if rank > 2 else None,
        restrictions=["block_size_x * block_size_y <= 1024"] if rank > 1 else [],
        # a size fixed by a #define in the source cannot change: no checks at other sizes
        verify_sizes=[] if any(d in defined for d in dims) else None,
    )


def draft_note(spec: Spec) -> str:
    """What the user must look at in a draft: the float scalars given a made-up value."""
    names = [a.name for a in spec.args if not a.is_array and a.value == FLOAT_SCALAR and a.type.startswith("float")]
    if not names:
        return ""
    return (f" {', '.join(names)} = {FLOAT_SCALAR}: a value chosen so that the kernel's arithmetic is not trivial "
            "(not 0 or 1); set the value you use.")
