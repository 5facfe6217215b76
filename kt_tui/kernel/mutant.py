"""Wrong variants of a kernel, of the kinds a rewrite gets wrong (issue 35): a check that one of them
passes cannot tell it from the original. Each mutant is one edit of the kernel's tokens (syntax.py's
lexer; nothing is evaluated): a bound or a subscript off by one, two index axes or two sizes swapped,
`+` <-> `-`, a dropped term, half a loop or reduction, a changed constant, a signed <-> unsigned or
narrowed element type, a mask on an integer load, and the do-nothing kernel (its body emptied).
Edits that mean nothing are not made: an index or size variable narrowed, a warp's mask changed, a
single-writer guard after a barrier moved to another thread. Also the one variant that is not wrong,
for the check's race test: the kernel with its blocks in reverse order."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from . import equivalent, equivalent_count, equivalent_launch, equivalent_steps, equivalent_warp
from .mutant_text import KernelText, definitions
from .syntax import Token, tokens

if TYPE_CHECKING:
    from .spec_model import Spec


class NoMutant(ValueError):
    """The kernel's definition (its body) was not found in the source."""


KINDS = ("nothing", "bound", "index", "swap", "sign", "drop", "half", "const", "type", "mask")
T = TypeVar("T")
CAP = 30  # mutants tested per kernel: a kind-balanced sample when there are more sites


@dataclass(frozen=True)
class Mutant:
    id: str  # "m07": its place in the sample
    kind: str  # one of KINDS
    line: int  # 1-based line of the edit
    what: str  # "line 12:11: `<` -> `<=` in `if (i < n)`" (line:column)
    source: str
    equivalent: str = ""  # why no input can kill it (kernel/equivalent.py), or ""


def body_span(source: str, kernel: str) -> tuple[int, int]:
    """Offsets of the text between the braces of `kernel`'s definition (a declaration has none)."""
    name = kernel.split("<")[0].strip()
    for found, _, start, end in definitions(source):
        if found == name:
            return start, end
    raise NoMutant(f"no definition of the kernel {kernel!r} found in the source")


def do_nothing(source: str, kernel: str) -> str:
    """The source with `kernel`'s body emptied (line numbers after it shift; nothing else changes)."""
    start, end = body_span(source, kernel)
    return source[:start] + " /* emptied by kt-tui: a do-nothing mutant */ " + source[end:]


# words that name a block's place other than through blockIdx (cooperative groups, clusters, PTX's special
# registers): with blockIdx reversed alone, they would say another block than the code around them
_BLOCK_PLACE = re.compile(
    r"cooperative_groups|__cluster|cluster_|clusterid|ctaid|ctarank|smid|this_grid|grid_group|block_index|group_index"
    r"|block_rank"
)
REVERSE_BLOCKS = (
    "#define blockIdx uint3{gridDim.x - 1 - blockIdx.x, gridDim.y - 1 - blockIdx.y, gridDim.z - 1 - blockIdx.z}\n"
)


def blocks_reversed(source: str) -> str | None:
    """The source with its grid's blocks in reverse order on every axis: the block the GPU starts first
    does the last block's work (in the kernel and every function it calls; the macro's own `blockIdx`
    is the built-in one). Not a wrong variant: CUDA runs a grid's blocks in any order, so a kernel
    without a race between blocks computes the same outputs; blocks that race for the same elements
    get another winner. None where the code reads a block's place another way (_BLOCK_PLACE)."""
    if _BLOCK_PLACE.search(source):  # PTX in a string included; a comment that names one only costs the reversal
        return None
    return REVERSE_BLOCKS + source


# -- the sites ------------------------------------------------------------------------------------
Edit = tuple[int, int, str]  # replace source[start:end] with the text
_PAIRS = (("w", "h"), ("x", "y"), ("width", "height"), ("rows", "cols"), ("row", "col"), ("m", "n"), ("i", "j"))
# an element type read another way: the same width, the other signedness (pointees, casts, locals) ...
_FLIP = {
    ("unsigned", "char"): "signed char",
    ("signed", "char"): "unsigned char",
    ("char",): "unsigned char",
    ("unsigned", "int"): "int",
    ("unsigned",): "int",
    ("int",): "unsigned int",
    ("unsigned", "short"): "short",
    ("short",): "unsigned short",
    ("uint8_t",): "int8_t",
    ("int8_t",): "uint8_t",
    ("uint16_t",): "int16_t",
    ("int16_t",): "uint16_t",
    ("uint32_t",): "int32_t",
    ("int32_t",): "uint32_t",
}
_WIDE = {("unsigned", "int"), ("unsigned",), ("int",), ("uint32_t",), ("int32_t",)}
# ... or narrowed (casts and locals only: a narrowed pointee reads another layout, which any check sees)
_NARROW = {
    ("int",): "short",
    ("unsigned", "int"): "unsigned short",
    ("long", "long"): "int",
    ("long",): "int",
    ("int64_t",): "int32_t",
    ("double",): "float",
}
_FULL_MASK = 0xFFFFFFFF  # a warp's full mask: a value of no computation, +1 of it is no plausible rewrite
_UNIFORM = {"blockIdx", "blockDim", "gridDim", "x", "y", "z"}  # the same for every thread of a block
_MASKS = {"char": "0x7f", "uint8_t": "0x7f", "int8_t": "0x7f", "short": "0x7fff", "uint16_t": "0x7fff"}


class _Sites(KernelText):
    """Every edit of each kind in the kernel's code (and its __device__ helpers: what the kernel does
    not use compiles to the same code, which the equivalence test sees). Its tokens are read with
    kernel/mutant_text.py's helpers."""

    def __init__(self, source: str, kernel: str, spec: Spec | None = None) -> None:
        self.source = source
        self.spec = spec
        defs = definitions(source)
        name = kernel.split("<")[0].strip()
        mine = [d for d in defs if d[0] == name]
        if not mine:
            raise NoMutant(f"no definition of the kernel {kernel!r} found in the source")
        _, self.params_at, self.body, self.end = mine[0]
        others = [(s, e) for n, _, s, e in defs if n != name and (s, e) != (self.body, self.end)]  # other kernels
        self.toks = [
            t
            for t in tokens(source)
            if t.directive is None and t.pos < self.end and not any(s <= t.pos < e for s, e in others)
        ]
        self.found: dict[str, list[tuple[Edit, str]]] = {k: [] for k in KINDS}
        self.macros = set(re.findall(r"^\s*#\s*define\s+([A-Za-z_]\w*)\s", source, re.M))

    def add(self, kind: str, edit: Edit, change: str) -> None:
        at = edit[0]
        self.found[kind].append((edit, f"{self.where(at)}: {change} in `{self.context(at)}`"))

    def equivalent(self, kind: str, at: int, new: str, end: int | None = None) -> str:
        """Why the edit of source[at:end] to `new` is equivalent by construction (kernel/equivalent.py), or ""."""
        i = next((k for k, t in enumerate(self.toks) if t.pos == at), -1)
        if i < 0:
            return ""
        names = [(n, base) for n, base, _ in self.params()]
        if end is not None and (
            why := equivalent_count.count_past_launch(
                self.toks, i, self.source, (at, end, new), self.spec, names, self.body
            )
        ):
            return why
        if kind == "bound":
            scalars = {n for n, _, ptr in self.params() if not ptr}
            return (
                equivalent.comparison(self.toks, i)
                or equivalent_launch.launch_bound(
                    self.toks, i, equivalent_launch.block_counts(self.spec, [n for n, _, _ in self.params()]), self.body
                )
                or equivalent_launch.partner_tie(self.toks, i, scalars)
                or equivalent_steps.loop_tail(self.toks, i, kind)
                or equivalent_steps.insertion_tie(self.toks, i)
            )
        if kind == "const":
            return (
                equivalent_warp.butterfly_start(self.toks, i, new)
                or equivalent_warp.lane_guard(self.toks, i, new)
                or equivalent_steps.clamp_step(self.toks, i, new)
                or equivalent_launch.last_step_warp(
                    self.toks, i, new, self.spec, {n for n, _, _ in self.params()}, self.body
                )
            )
        if kind in ("drop", "sign") and self.shared_line(self.toks[i]):
            return equivalent_launch.shared_extent(self.toks, i, self.macros)
        if kind == "drop":
            return equivalent_steps.loop_tail(self.toks, i, kind)
        return ""

    # the kinds
    def collect(self) -> None:
        for i, t in enumerate(self.toks):
            if not self.in_body(t):
                continue
            if t.kind == "op":
                self.operator(i, t)
            elif t.kind == "number" and not self.shared_line(t) and not self.no_value(i):
                self.constant(t)
            elif t.kind == "ident":
                if t.text == "for":
                    self.loop(i)
                self.type_(i, t)
        self.pointees()
        self.swaps()
        self.masks()

    def operator(self, i: int, t: Token) -> None:
        flip = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}
        nxt = self.toks[i + 1].text if i + 1 < len(self.toks) else ""
        if t.text in flip and self.binary(i) and not self.shared_line(t) and nxt not in ("<", ">"):
            self.add("bound", (t.pos, t.pos + len(t.text), flip[t.text]), f"`{t.text}` -> `{flip[t.text]}`")
        if t.text in ("+", "-", "+=", "-=") and (self.binary(i) or len(t.text) == 2):
            other = {"+": "-", "-": "+", "+=": "-=", "-=": "+="}[t.text]
            self.add("sign", (t.pos, t.pos + len(t.text), other), f"`{t.text}` -> `{other}`")
        if t.text in ("+", "-") and self.binary(i):
            j = self.term_end(i + 1)
            if j > i + 1:
                end = self.toks[j - 1]
                self.add("drop", (t.pos, end.pos + len(end.text), ""), f"dropped `{self.span(i, j)}`")
        if t.text == "[" and i and (self.toks[i - 1].kind == "ident" or self.toks[i - 1].text == "]"):
            close = self.closing(i, "[", "]")
            if close > i + 1 and not self.shared_line(t):
                step = " + 1" if len(self.found["index"]) % 2 == 0 else " - 1"
                at = self.toks[close].pos
                inner = self.span(i + 1, close)
                self.add("index", (at, at, step), f"`[{inner}]` -> `[{inner}{step}]`")

    def constant(self, t: Token) -> None:
        text = t.text
        m = re.fullmatch(r"(0[xX][0-9a-fA-F]+|\d+)([uUlL]*)", text)
        if m:
            value = int(m.group(1), 0) + 1
            new = (hex(value) if m.group(1).lower().startswith("0x") else str(value)) + m.group(2)
        else:
            f = re.fullmatch(r"((?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)([fF]?)", text)
            if not f:
                return
            value_f = float(f.group(1))
            new = (repr(value_f * 2) if value_f else "1.0") + f.group(2)
        self.add("const", (t.pos, t.pos + len(text), new), f"`{text}` -> `{new}`")

    def no_value(self, i: int) -> bool:
        """A constant no rewrite gets wrong by one: a warp's mask (0xffffffff wherever it is, e.g.
        compared with `__activemask()`, or the first argument of a `__*_sync` intrinsic), a shuffle's
        width, or the 0 of a single-writer guard."""
        m = re.fullmatch(r"(0[xX][0-9a-fA-F]+|\d+)[uUlL]*", self.toks[i].text)
        value = int(m.group(1), 0) if m else None
        call = self.toks[i - 2].text if i >= 2 and self.toks[i - 1].text == "(" else ""
        if value == _FULL_MASK or re.fullmatch(r"__\w+_sync|__syncwarp", call):
            return True
        if self.shuffle_width(i):
            return True
        return value == 0 and self.single_writer(i)

    def shuffle_width(self, i: int) -> bool:
        """Whether token i is the width of a `__shfl*_sync` (its fourth argument): a power of two up to
        32, so one more is no plausible rewrite (and undefined)."""
        toks, depth, commas = self.toks, 0, 0
        for j in range(i - 1, max(-1, i - 64), -1):
            text = toks[j].text
            if text in (")", "]"):
                depth += 1
            elif text in ("(", "["):
                if depth == 0:
                    return commas == 3 and j > 0 and toks[j - 1].text.startswith("__shfl")
                depth -= 1
            elif text == "," and depth == 0:
                commas += 1
            elif text in (";", "{", "}"):
                return False
        return False

    def single_writer(self, i: int) -> bool:
        """Whether token i is the 0 of `if (tid == 0)` guarding a statement that writes only what
        every thread of the block sees alike: after a barrier, shared values and parameters
        (`partial[blockIdx.x] = sdata[0];`); anywhere, parameters and constants (`count = 0;` into a
        `__shared__ int count`). `tid == 1` writes the same, a true equivalent wherever a block has
        two threads, which no input can kill; the guard is not mutated."""
        toks = self.toks
        if toks[i - 1].text != "==" and (i + 1 >= len(toks) or toks[i + 1].text != "=="):
            return False
        open_ = next((j for j in range(i - 1, self.body_index(), -1) if toks[j].text == "("), -1)
        close = self.closing(open_, "(", ")") if open_ > 0 else -1
        if close < 0 or toks[open_ - 1].text != "if":
            return False
        guard = {toks[j].text for j in range(open_ + 1, close)}
        if not (guard & ({"threadIdx"} | self.thread_names())) or "blockIdx" in guard or self.may_lack_one(i):
            return False
        end = (
            self.closing(close + 1, "{", "}")
            if toks[close + 1].text == "{"
            else next((j for j in range(close, len(toks)) if toks[j].text == ";"), -1)
        )
        shared = self.shared_names()
        uniform = shared | {n for n, *_ in self.param_spans()} | _UNIFORM
        used = [j for j in range(close + 1, end) if toks[j].kind == "ident" and toks[j + 1].text != "("]
        if end <= 0 or not all(toks[j].text in uniform for j in used):
            return False
        if end + 1 < len(toks) and toks[end + 1].text == "else":  # thread 0 runs the else then
            return False
        params = {n for n, *_ in self.param_spans()}
        if any(toks[j].text in params and self.sets_own(j) for j in used):  # a thread's copy of a parameter
            return False
        reads_shared = any(toks[j].text in shared and toks[j + 1].text != "=" for j in used)
        return not reads_shared or any(toks[j].text == "__syncthreads" for j in range(self.body_index(), open_))

    def may_lack_one(self, i: int) -> bool:
        """Whether the block may have no thread 1 along the axis the 0 at token i is compared with
        (`threadIdx.y == 0` where block_size_y may be 1, or is not tuned: no thread has
        threadIdx.y == 1, so `== 1` writes nothing)."""
        toks = self.toks
        side = [t.text for t in (toks[i - 4 : i - 1] if toks[i - 1].text == "==" else toks[i + 2 : i + 5])]
        name = toks[i - 2].text if toks[i - 1].text == "==" else toks[i + 2].text
        if side[:2] != ["threadIdx", "."] and name in self.thread_names():  # `const int ty = threadIdx.y;`
            exact = [t[2:] for t in self.sets(name) if len(t) == 5 and t[2:4] == ["threadIdx", "."]]
            side = exact[0] if len(exact) == 1 else side
        axis = side[2] if side[:2] == ["threadIdx", "."] and side[2:] and side[2] in ("x", "y", "z") else ""
        if not axis:
            return False
        at = "xyz".index(axis)
        spec = self.spec
        if spec is None:
            return at > 0
        names = spec.block_size_names or ["block_size_x", "block_size_y", "block_size_z"]
        sizes = spec.tune_params.get(names[at], [1] if at else []) if at < len(names) else [1]
        return any(not isinstance(v, int) or v < 2 for v in sizes)

    def sets(self, name: str) -> list[list[str]]:
        """The texts of each statement `name = ...;` in the body, as tokens (from the name)."""
        toks, out = self.toks, []
        for j in range(self.body_index(), len(toks) - 1):
            if toks[j].text == name and toks[j + 1].text == "=":
                end = next((k for k in range(j, len(toks)) if toks[k].text == ";"), len(toks))
                out.append([t.text for t in toks[j:end]])
        return out

    def sets_own(self, j: int) -> bool:
        """Whether token j, a name, is itself assigned or stepped (`skip = 0`, `p += 4`, `n--`), not
        written through (`*p = 0`, `p[0] = 0`)."""
        toks = self.toks
        after = toks[j + 1].text if j + 1 < len(toks) else ""
        steps = after in ("++", "--") or toks[j - 1].text in ("++", "--")
        return steps or (after.endswith("=") and after not in ("==", "<=", ">=", "!=") and toks[j - 1].text != "*")

    def loop(self, i: int) -> None:
        """Half a loop: an ascending loop's bound halved, a descending one (a reduction's stride,
        a shuffle ladder) started at half."""
        if i + 1 >= len(self.toks) or self.toks[i + 1].text != "(":
            return
        close = self.closing(i + 1, "(", ")")
        semis = [j for j in range(i + 2, close) if self.toks[j].text == ";"]
        if close < 0 or len(semis) != 2:
            return
        step = {t.text for t in self.toks[semis[1] + 1 : close]}
        cond = self.toks[semis[0] + 1 : semis[1]]
        if step & {"++", "+=", "*=", "<<="} and len(cond) >= 3 and cond[1].text in ("<", "<="):
            a, b = cond[2], cond[-1]
            bound = self.source[a.pos : b.pos + len(b.text)]
            self.add("half", (a.pos, b.pos + len(b.text), f"({bound}) / 2"), f"loop bound `{bound}` halved")
        elif step & {"--", "-=", "/=", ">>="}:
            init = self.toks[i + 2 : semis[0]]
            eq = next((k for k, t in enumerate(init) if t.text == "="), -1)
            if 0 <= eq < len(init) - 1:
                a, b = init[eq + 1], init[-1]
                start = self.source[a.pos : b.pos + len(b.text)]
                self.add("half", (a.pos, b.pos + len(b.text), f"({start}) / 2"), f"loop start `{start}` halved")

    def type_key(self, i: int) -> tuple[str, ...]:
        """The words of a type named at token i (`unsigned int`, `long long`, `float`)."""
        t = self.toks[i].text
        nxt = self.toks[i + 1].text if i + 1 < len(self.toks) else ""
        if t in ("unsigned", "signed"):
            return (t, nxt) if nxt in ("char", "short", "int") else (t,) if nxt != "long" and t == "unsigned" else ()
        return ("long", "long") if t == nxt == "long" else (t,)

    def retype(self, i: int, *tables: dict[tuple[str, ...], str]) -> None:
        key = self.type_key(i)
        new = next((table[key] for table in tables if key in table), None)
        if new is None or self.shared_line(self.toks[i]):
            return
        t, end = self.toks[i], self.toks[i + len(key) - 1]
        self.add("type", (t.pos, end.pos + len(end.text), new), f"`{' '.join(key)}` -> `{new}`")

    def type_(self, i: int, t: Token) -> None:
        """An element type read another way where a value is loaded: a cast of a load (`(int)p[i]`), a
        local that holds one (`int v = raw[i];`, any `double`), never an index or size variable (a
        loop's counter, `int x = blockIdx.x * ...`): narrowing those is equivalent below 2**15."""
        prev = self.toks[i - 1].text if i else ""
        if prev in ("unsigned", "signed", "long"):
            return
        key = self.type_key(i)
        after = i + len(key)
        if not key or after + 1 >= len(self.toks):
            return
        if prev == "(" and self.toks[after].text == ")" and self.load_at(after + 1):
            self.retype(i, _NARROW, _FLIP)
            return
        before = self.toks[i - 2].text if prev == "const" and i >= 2 else prev
        if before not in (";", "{", "}") or self.toks[after].kind != "ident" or self.toks[after + 1].text != "=":
            return
        end = next((j for j in range(after, len(self.toks)) if self.toks[j].text == ";"), len(self.toks))
        if key == ("double",) or any(self.load_at(j) for j in range(after + 2, end)):
            self.retype(i, _NARROW, _FLIP)

    def pointees(self) -> None:
        """The pointee of each pointer parameter the kernel reads through, its signedness flipped
        (`const unsigned char *data` -> `signed char`): 8 and 16 bits, which every use promotes to
        int. A 32-bit flip is the same bits in a register, seen only by a few uses (almost always
        equivalent: index arrays, loads into int locals), and a pointer only stored to or handed to
        an atomic writes the same bits: neither is mutated."""
        for name, first, _, ptr in self.param_spans():
            if ptr and self.reads(name) and self.type_key(first) not in _WIDE:
                self.retype(first, _FLIP)

    def swaps(self) -> None:
        """Two sizes swapped at one use (fw for fh, w for h), and two index axes swapped in a subscript
        or in an index's definition (threadIdx.x for threadIdx.y)."""
        names = {n for n, _, ptr in self.params() if not ptr} | self.macros
        pairs = {}
        for a in names:
            for p, q in _PAIRS:
                for b in {a.replace(p, q), a.replace(p.upper(), q.upper())} - {a}:
                    if b in names:
                        pairs[a] = b
        body = [t for t in self.toks if self.in_body(t)]
        for t in body:
            if t.kind == "ident" and t.text in pairs:
                self.add("swap", (t.pos, t.pos + len(t.text), pairs[t.text]), f"`{t.text}` -> `{pairs[t.text]}`")
        two_d = any(t.text == "y" and self.toks[k - 1].text == "." for k, t in enumerate(self.toks) if k)
        for k, t in enumerate(self.toks):
            if not self.in_body(t) or t.text != "=" or not two_d:
                continue
            end = next((j for j in range(k, len(self.toks)) if self.toks[j].text in (";", ")")), k)
            axis = [j for j in range(k + 1, end) if self.toks[j].text in ("x", "y") and self.toks[j - 1].text == "."]
            if axis and {self.toks[j].text for j in axis} == {"x"}:
                rhs = self.span(k + 1, end)
                new = re.sub(r"\.x\b", ".y", rhs)
                self.add("swap", (self.toks[k + 1].pos, self.toks[end - 1].pos + len(self.toks[end - 1].text), new),
                         f"`{rhs}` -> `{new}`")  # fmt: skip
        for k, t in enumerate(self.toks):
            if t.text != "[" or not self.in_body(t) or self.shared_line(t):
                continue
            close = self.closing(k, "[", "]")
            idents = {self.toks[j].text for j in range(k + 1, close) if self.toks[j].kind == "ident"}
            for p, q in (("x", "y"), ("i", "j"), ("row", "col"), ("tx", "ty")):
                if p in idents and q in idents:
                    inner = self.span(k + 1, close)
                    new = re.sub(rf"\b({p}|{q})\b", _swapper(p, q), inner)
                    at, end = self.toks[k + 1].pos, self.toks[close].pos
                    self.add("swap", (at, end, new), f"`[{inner}]` -> `[{new}]`")

    def masks(self) -> None:
        """An integer array's element masked where it is read (`& 0x7f` on a byte)."""
        for name, base, ptr in self.params():
            words = base.split()
            mask = _MASKS.get(
                words[-1] if words else "", "0xffff" if words and words[-1] in ("int", "unsigned") else ""
            )
            if not ptr or not mask:
                continue
            for k, t in enumerate(self.toks):
                if t.text != name or not self.in_body(t) or k + 1 >= len(self.toks) or self.toks[k + 1].text != "[":
                    continue
                close = self.closing(k + 1, "[", "]")
                after = self.toks[close + 1].text if close + 1 < len(self.toks) else ""
                before = self.toks[k - 1].text if k else ""
                if close < 0 or after in ("=", "+=", "-=", "*=", "/=", "++", "--") or before in ("&", "++", "--"):
                    continue  # written, or its address taken
                read = self.span(k, close + 1)
                end = self.toks[close].pos + 1
                self.add("mask", (t.pos, end, f"({read} & {mask})"), f"`{read}` -> `({read} & {mask})`")


def _swapper(p: str, q: str) -> Callable[[re.Match[str]], str]:
    return lambda m: q if m.group(1) == p else p


def _spread(items: list[T], seed: int) -> list[T]:
    """The items in a fixed order that spreads them over the kernel (not the first lines first)."""
    order = list(items)
    random.Random(seed).shuffle(order)
    return order


def mutants(source: str, kernel: str, cap: int = CAP, spec: Spec | None = None) -> list[Mutant]:
    """Up to `cap` mutants of `kernel` in `source`, kind-balanced and deterministic: the kinds take
    turns, each in a fixed spread order of its sites; the do-nothing mutant comes first. With the
    `spec`, a bound its launch makes unreachable is an equivalent too (kernel/equivalent.py)."""
    sites = _Sites(source, kernel, spec)
    sites.collect()
    start, _ = body_span(source, kernel)
    queues = {k: _spread(v, len(v)) for k, v in sites.found.items()}
    out: list[Mutant] = []
    seen = {source}
    nothing = do_nothing(source, kernel)
    out.append(Mutant("m00", "nothing", sites.line_of(start), "the kernel's body emptied (it does nothing)", nothing))
    seen.add(nothing)
    while len(out) < cap and any(queues.values()):
        for kind in KINDS:
            if not queues[kind] or len(out) >= cap:
                continue
            (a, b, text), what = queues[kind].pop(0)
            changed = source[:a] + text + source[b:]
            if changed in seen:
                continue
            seen.add(changed)
            out.append(
                Mutant(f"m{len(out):02d}", kind, sites.line_of(a), what, changed, sites.equivalent(kind, a, text, b))
            )
    return out
