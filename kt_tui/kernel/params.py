"""Match the tunable parameters a kernel uses with the ones the spec declares, and propose fixes."""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass, field
from typing import Any

from .parsed import ParsedKernel, parsed
from .syntax import Token

BLOCK_SIZE_NAMES = ["block_size_x", "block_size_y", "block_size_z"]
# kernel_tuner defines these for every configuration, whatever the tune_params
TUNER_DEFINES = {"grid_size_x", "grid_size_y", "grid_size_z", "kernel_tuner"}

BUILTINS = set(
    """
threadIdx blockIdx blockDim gridDim warpSize
auto bool char short int long float double void signed unsigned const volatile static extern inline
constexpr consteval constinit mutable register thread_local typename template class struct union enum
namespace using typedef return if else for while do switch case default break continue goto sizeof
alignof alignas decltype new delete this true false nullptr operator public private protected friend
virtual override final explicit noexcept static_assert static_cast reinterpret_cast const_cast
dynamic_cast throw try catch asm restrict defined
size_t ptrdiff_t dim3 half half2 nv_bfloat16 nv_bfloat162 std cooperative_groups cg cub thrust nvcuda wmma
NULL INFINITY NAN HUGE_VAL HUGE_VALF FLT_MAX FLT_MIN FLT_EPSILON DBL_MAX DBL_MIN DBL_EPSILON INT_MAX
INT_MIN UINT_MAX LONG_MAX LLONG_MAX SHRT_MAX CHAR_BIT M_PI M_E M_SQRT2 CUDART_INF_F CUDART_NAN_F
CUDART_PI_F CUDART_INF CUDART_NAN CUDART_PI EOF RAND_MAX EXIT_SUCCESS EXIT_FAILURE
""".split()
)
_VECTOR = re.compile(r"(u?(char|short|int|long|longlong)|float|double)[1-4]")
_LOWER_SNAKE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")
_UPPER_SNAKE = re.compile(r"[A-Z][A-Z0-9_]*")
_NOT_TYPES = {
    "return",
    "case",
    "else",
    "goto",
    "new",
    "delete",
    "sizeof",
    "throw",
    "do",
    "co_return",
    "co_yield",
    "co_await",
    "operator",
    "defined",
    "alignof",
    "decltype",
    "typeid",
}
_QUALIFIERS = {
    "const",
    "volatile",
    "__restrict__",
    "__restrict",
    "restrict",
    "constexpr",
    "static",
    "__shared__",
    "__constant__",
    "__device__",
    "__managed__",
    "extern",
    "register",
    "inline",
    "__forceinline__",
    "__noinline__",
    "__host__",
    "__global__",
}
_BASIC_TYPES = {
    "bool",
    "char",
    "short",
    "int",
    "long",
    "float",
    "double",
    "void",
    "auto",
    "half",
    "size_t",
    "dim3",
    "half2",
    "__half",
    "__half2",
    "nv_bfloat16",
    "__nv_bfloat16",
    "unsigned",
    "signed",
}

# alias spellings (lower case, no underscores) for common parameters; the key is the index in
# block_size_names for thread block dimensions, or the canonical parameter name
ALIASES: dict[int | str, set[str]] = {
    0: {
        "blocksize",
        "blocksizex",
        "blockdim",
        "blockdimx",
        "blockx",
        "bdimx",
        "threads",
        "threadsx",
        "numthreads",
        "nthreads",
        "threadsperblock",
        "tpb",
        "bsx",
        "bs",
    },
    1: {"blocksizey", "blockdimy", "blocky", "bdimy", "threadsy", "bsy"},
    2: {"blocksizez", "blockdimz", "blockz", "bdimz", "threadsz", "bsz"},
    "tile_size": {"tile", "tilesize", "tiledim", "tilewidth", "tw", "ts"},
    "tile_size_x": {"tilex", "tilesizex", "tiledimx", "tilewidthx"},
    "tile_size_y": {"tiley", "tilesizey", "tiledimy", "tileheight"},
    "items_per_thread": {
        "itemsperthread",
        "elementsperthread",
        "elemsperthread",
        "workperthread",
        "valuesperthread",
        "ipt",
        "ept",
        "itemsperthreadx",
    },
    "loop_unroll_factor": {"unroll", "unrollfactor", "loopunroll", "loopunrollfactor"},
    "vector_size": {"vecsize", "vectorsize", "vectorwidth", "vecwidth", "vec"},
}


_NAMES: weakref.WeakKeyDictionary[ParsedKernel, _Names] = weakref.WeakKeyDictionary()  # kept while the parse is


def _norm(name: str) -> str:
    return name.replace("_", "").lower()


@dataclass
class ParamReport:
    used_undeclared: list[str] = field(default_factory=list)
    declared_unused: list[str] = field(default_factory=list)
    renames: dict[str, str] = field(default_factory=dict)  # name in the code -> name in tune_params

    @property
    def ok(self) -> bool:
        targets = set(self.renames.values())
        return all(u in self.renames for u in self.used_undeclared) and all(p in targets for p in self.declared_unused)


class _Names:
    """What check_params reads from one source, whatever the tunable parameters."""

    def __init__(self, code: ParsedKernel) -> None:
        toks = code.tokens
        self.referenced = {t.text for t in toks if t.kind == "ident" and t.directive != "include"}
        self.declared = _declared(toks, code)
        self.used = _used_names(toks)


def check_params(
    source: str | ParsedKernel, tune_params: dict[str, list[Any]], block_size_names: list[str] | None = None
) -> ParamReport:
    """Compare the compile-time constants the code uses with the declared tunable parameters."""
    block_names = list(block_size_names or BLOCK_SIZE_NAMES)
    code = parsed(source)
    names = _NAMES.get(code)
    if names is None:
        names = _NAMES[code] = _Names(code)
    referenced = names.referenced
    known = names.declared | BUILTINS | set(tune_params) | set(block_names) | TUNER_DEFINES
    unused = [p for p in tune_params if p not in referenced and p not in block_names]
    undeclared: list[str] = []
    renames: dict[str, str] = {}
    for name in names.used:
        if name in known or name in undeclared or _is_builtin(name):
            continue
        target = _rename_target(name, unused, tune_params, block_names)
        if target:
            renames[name] = target
        if target or _looks_like_param(name):
            undeclared.append(name)
    return ParamReport(undeclared, unused, renames)


def _is_builtin(name: str) -> bool:
    return (
        name.startswith("_")
        or name.endswith("_t")
        or bool(_VECTOR.fullmatch(name))
        or name.startswith(("atomic", "make_", "cuda"))
    )


def _looks_like_param(name: str) -> bool:
    return bool(_LOWER_SNAKE.fullmatch(name) or _UPPER_SNAKE.fullmatch(name))


def _rename_target(name: str, unused: list[str], tune_params: dict[str, Any], block_names: list[str]) -> str | None:
    for p in unused:
        if _norm(p) == _norm(name):
            return p
    for p in block_names:
        if p in tune_params and _norm(p) == _norm(name):
            return p
    for key, spellings in ALIASES.items():
        target = block_names[key] if isinstance(key, int) and key < len(block_names) else key
        if isinstance(target, str) and target in tune_params and _norm(name) in spellings:
            return target
    return None


def _used_names(toks: list[Token]) -> list[str]:
    """Identifiers used as values, in order: not members, not calls, not qualified names."""
    used: list[str] = []
    for i, t in enumerate(toks):
        if t.kind != "ident" or not _counts_as_use(t):
            continue
        prev = toks[i - 1].text if i else ""
        nxt = toks[i + 1].text if i + 1 < len(toks) else ""
        if prev in (".", "->", "::") or nxt == "::":
            continue
        if nxt == "(" or (t.directive == "pragma" and toks[i - t.place + 2].text != "unroll"):
            continue
        if t.directive in ("if", "elif") and (prev == "defined" or (prev == "(" and toks[i - 2].text == "defined")):
            continue
        used.append(t.text)
    return used


def _counts_as_use(t: Token) -> bool:
    if t.directive is None:
        return True
    if t.directive in ("if", "elif"):
        return t.place >= 2
    if t.directive == "define":
        return t.place >= 3
    return t.directive == "pragma" and t.place >= 3


def _declared(toks: list[Token], parsed_source: ParsedKernel) -> set[str]:
    """Names the code declares: macros and their parameters, variables, functions, types, enumerators."""
    source = parsed_source.source
    code = parsed_source.code_text(unread=True)
    declared = _enumerators(code) | {m[1] for m in re.finditer(r"\btypedef\b[^;{}]*?\b(\w+)\s*;", code)}
    types = set(_BASIC_TYPES) | declared
    depth, decl_depth = 0, None
    for i, t in enumerate(toks):
        if t.directive is not None:
            if t.directive == "define" and t.place == 2 and t.kind == "ident":
                declared.add(t.text)
                if source.startswith("(", t.pos + len(t.text)):  # function-like: its parameters too
                    j = i + 2
                    while j < len(toks) and toks[j].text != ")" and toks[j].directive == "define":
                        declared.add(toks[j].text)
                        j += 1
            continue
        if t.text in ("(", "["):
            depth += 1
        elif t.text in (")", "]"):
            depth -= 1
            if decl_depth is not None and depth < decl_depth:
                decl_depth = None
        elif t.text in (";", "{", "}"):
            decl_depth = None
        elif t.text == "," and decl_depth == depth:
            j = i + 1
            while j < len(toks) and toks[j].text in ("*", "&"):
                j += 1
            if j + 1 < len(toks) and toks[j].kind == "ident" and toks[j + 1].text in ("=", ",", ";", "[", ")"):
                declared.add(toks[j].text)
        if t.kind != "ident" or t.text in BUILTINS:
            continue
        j, stars = i - 1, False
        while j >= 0 and (toks[j].text in ("*", "&", "&&") or toks[j].text in _QUALIFIERS):
            stars = stars or toks[j].kind == "op"
            j -= 1
        before = toks[j] if j >= 0 else None
        if before is None or before.kind != "ident" or before.directive is not None:
            continue
        if before.text in _NOT_TYPES or (
            stars and not (before.text in types or _is_builtin(before.text) or (j and toks[j - 1].text == "::"))
        ):
            continue
        declared.add(t.text)
        decl_depth = depth
        if before.text in ("struct", "class", "union", "enum", "typename", "using"):
            types.add(t.text)
    return declared


def _enumerators(source: str) -> set[str]:
    names: set[str] = set()
    for m in re.finditer(r"\benum\b[^{;]*\{([^}]*)\}", source):
        for item in m[1].split(","):
            name = re.match(r"\s*([A-Za-z_]\w*)", item)
            if name:
                names.add(name[1])
    return names


def apply_renames(source: str | ParsedKernel, renames: dict[str, str]) -> str:
    """Rename whole identifiers outside comments, string literals, #include lines and member access."""
    code = parsed(source)
    source = code.source
    if not renames:
        return source
    parts, last, prev = [], 0, ""
    for t in code.tokens:
        if t.kind == "ident" and t.text in renames and t.directive != "include" and prev not in (".", "->", "::"):
            parts.append(source[last : t.pos])
            parts.append(renames[t.text])
            last = t.pos + len(t.text)
        prev = t.text
    parts.append(source[last:])
    return "".join(parts)


def rename_tune_params(tune_params: dict[str, list[Any]], renames: dict[str, str]) -> dict[str, list[Any]]:
    """The other direction: rename tune_params keys to the names the code uses, keeping the order."""
    back: dict[str, str] = {}
    for code_name, param in renames.items():
        if param in back:
            raise ValueError(
                f"the code uses both {back[param]!r} and {code_name!r} for {param!r}; rename the code instead"
            )
        back[param] = code_name
    out: dict[str, list[Any]] = {}
    for key, values in tune_params.items():
        new = back.get(key, key)
        if new in out or (new != key and new in tune_params):
            raise ValueError(f"cannot rename {key!r} to {new!r}: that name is already a tunable parameter")
        out[new] = values
    return out
