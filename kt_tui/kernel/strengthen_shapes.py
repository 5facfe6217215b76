"""Stronger inputs chosen by the kernel's code (issue 35, item 2), beside kernel/strengthen.py's cases
from the spec alone: each is made only where the source has the shape that needs it.
- a float scalar added under a square root (`rsqrtf(var + eps)`): a tiny epsilon never shows beside
  a variance of random values, so dropping it, or subtracting it, passes; the scalar set to 1 (the
  size of a random input's variance) shows it.
- a signed integer input compared with 0 (`if (slot < 0) return;`, an index with -1 for padding):
  random or user-made indices seldom hold a 0, so `< 0` -> `<= 0` passes; the array as -1, 0, 1, 2,
  ... holds a negative entry, a 0 and distinct values (entries that name places written stay
  race-free).
- a reduction over the warps' partial sums (`lane < nwarps ? s_sum[lane] : 0` in one warp): a loop
  over them cut in half is right while a block has at most 16 warps: the survivors then run at the
  largest block size the space allows (block_for_survivors).
- an integer flag the kernel branches on (`inverse ? a : b`): the spec gives one value, so a mistake
  in the other branch passes; the case gives the other truth value (0 for nonzero, 1 for 0).
- an integer size or scalar compared with a small constant (`crop_w > 1 ? ... : ...`): the case sets
  it to that constant, the edge the spec's values never meet.
- a value compared with a float constant (`wsum > (T)1e-11`, `fabsf(d) < 1e-6f`): random floats never
  equal it, nor fall between it and twice it, so `>` for `>=` and the constant doubled pass; the float
  inputs drawn from 0, +-c and +-sqrt(c) make values, products and squares equal to it, and sums of
  two of them equal to twice it (init = "ties").
- an index array bounded by a size, whose elements the kernel compares with the scalar passed that size
  (`if (img < 0 || img >= batch) continue;`): an index past the bound is skipped, so every other entry
  raised by 2**16 (init = "lifted") is skipped by the original, but not by a copy of it in 16 bits
  (`short img`) or its low 16 bits (`& 0xffff`), which see a valid index again."""

from __future__ import annotations

import re
from typing import Any

from .source import find_kernels
from .spec_keys import SPIKES
from .spec_model import Spec, _valid_at, int_range

_ROOT = re.compile(r"\b(?:rsqrtf?|sqrtf?|__fsqrt_r[nzud]|__dsqrt_r[nzud]|__frsqrt_rn)\s*\(")


def _params(spec: Spec, source: str) -> dict[str, Any]:
    """The kernel's parameter names, each with the spec's argument it is passed ({} when the source
    has no such kernel or the counts differ)."""
    try:
        kernels = [k for k in find_kernels(source) if k.name == spec.kernel_base_name()]
    except Exception:  # noqa: BLE001 - a source the finder cannot read has no shape to find
        return {}
    if len(kernels) != 1 or len(kernels[0].params) != len(spec.args):
        return {}
    return {p.name: a for p, a in zip(kernels[0].params, spec.args, strict=True)}


def _argument(text: str, open_at: int) -> str:
    """The text inside the parentheses opened at `open_at`."""
    depth = 0
    for k in range(open_at, len(text)):
        depth += (text[k] == "(") - (text[k] == ")")
        if depth == 0:
            return text[open_at + 1 : k]
    return ""


def _top_terms(text: str) -> list[str]:
    """`text` cut at `+` and `-` outside parentheses and brackets, each term stripped."""
    out, depth, last = [], 0, 0
    for k, c in enumerate(text):
        depth += (c in "([") - (c in ")]")
        if depth == 0 and c in "+-" and k > 0 and text[k - 1] not in "eE*/(+-":
            out.append(text[last:k])
            last = k + 1
    return [t.strip() for t in [*out, text[last:]]]


def _root_scalar_cases(spec: Spec, source: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    floats = {n for n, a in params.items() if not a.is_array and a.dtype.startswith("float")}
    found: list[str] = []
    for m in _ROOT.finditer(source):
        for term in _top_terms(_argument(source, m.end() - 1)):
            if term in floats and term not in found and params[term].value != 1:
                found.append(term)
    if not found:
        return []
    said = ", ".join(f"`{params[n].name}` = 1" for n in found)
    label = f"{said}: the scalar added under a square root as large as the values' spread"
    return [{"label": label, "args": {params[n].name: {"value": 1.0} for n in found}}]


def _compared_with_zero(source: str, array: str) -> bool:
    """Whether elements of `array` are compared with 0, directly (`array[i] < 0`) or through a local
    set from one (`const long long s = array[i]; if (s < 0)`)."""
    names = [re.escape(array) + r"\s*\[[^;]*?\]"]
    for m in re.finditer(r"\b([A-Za-z_]\w*)\s*=\s*(?:\([\w\s]+\)\s*)?" + re.escape(array) + r"\s*\[", source):
        names.append(r"\b" + re.escape(m.group(1)) + r"\b")
    for name in names:
        if re.search(rf"(?:{name})\s*(?:<|>=)\s*0(?![\w.])", source) or re.search(
            rf"(?<![\w.])0\s*(?:>|<=)\s*(?:{name})", source
        ):
            return True
    return False


def _negative_index_cases(spec: Spec, source: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for name, a in params.items():
        if not a.is_array or a.output or a.lanes != 1 or not a.dtype.startswith("int") or int_range(a.dtype)[0] >= 0:
            continue
        if a.init in ("range", "file") or a.dtype in ("int8", "int16") or not _compared_with_zero(source, name):
            continue  # int8/int16: -1, 0, 1, ... wraps past the type's top on a long array (equal entries)
        label = f"`{a.name}` as -1, 0, 1, 2, ...: a negative entry, a 0 and distinct entries (compared with 0)"
        out.append({"label": label, "args": {a.name: {"init": "range", "low": -1}}})
    return out


def _compared_with(code: str, array: str, bound: str) -> bool:
    """Whether elements of `array` are compared with `bound` in `code` (kernel_code), directly
    (`array[i] >= bound`) or through a local set from one (`const int img = array[b]; if (img >= bound)`)."""
    names = [re.escape(array) + r"\s*\[[^;]*?\]"]
    for m in re.finditer(r"\b([A-Za-z_]\w*)\s*=\s*(?:\([\w\s]+\)\s*)?" + re.escape(array) + r"\s*\[", code):
        names.append(r"\b" + re.escape(m.group(1)) + r"\b")
    b = re.escape(bound)
    return any(
        re.search(rf"(?:{name})\s*(?:>=|<)\s*{b}\b", code) or re.search(rf"\b{b}\s*(?:<=|>)\s*(?:{name})", code)
        for name in names
    )


LIFT = 1 << 16


def _lifted_index_cases(spec: Spec, code: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for name, a in params.items():
        bound = a.high.strip() if isinstance(a.high, str) else ""
        if not a.is_array or a.output or a.lanes != 1 or not a.dtype.startswith(("int", "uint")):
            continue
        if (
            a.init not in ("random", "uniform")
            or bound not in spec.sizes
            or a.dtype in ("int8", "int16", "uint8", "uint16")
        ):
            continue
        if int_range(a.dtype)[1] < spec.sizes[bound] + LIFT:
            continue
        passed = [
            p for p, b in params.items() if not b.is_array and isinstance(b.value, str) and b.value.strip() == bound
        ]
        if not any(_compared_with(code, name, p) for p in passed):
            continue
        label = f"`{a.name}` with every other entry raised by 2**16 past `{bound}` (skipped where the bound is checked)"
        out.append({"label": label, "args": {a.name: {"init": "lifted", "value": LIFT}}})
    return out


def kernel_code(source: str, name: str) -> str:
    """The body of kernel `name` (its first definition) with comments, strings, character literals
    and preprocessor lines blanked; "" where it is not found."""
    code = re.sub(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", " ", source, flags=re.S)
    code = re.sub(r"^[ \t]*#[^\n]*(?:\\\n[^\n]*)*", " ", code, flags=re.M)
    called = re.compile(rf"\b{re.escape(name)}\s*(?:<[^;{{]*>)?\s*\(")
    at, start = code.find("__global__"), -1
    while at >= 0 and start < 0:  # each declaration once: the text from __global__ to its `;` or `{`
        end = min((k for k in (code.find(";", at), code.find("{", at)) if k >= 0), default=len(code))
        if called.search(code, at, end):
            start = end if end < len(code) and code[end] == "{" else -1
        at = code.find("__global__", end)
    depth = 0
    for k in range(start, len(code) if start >= 0 else 0):
        depth += (code[k] == "{") - (code[k] == "}")
        if depth == 0:
            return code[start : k + 1]
    return ""


_COMPOUND = ("+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "==", "<=", ">=", "!=")


def _truth_value(code: str, name: str) -> bool:
    """Whether the integer `name` is used as a truth value on its own in `code` (kernel_code):
    `name ? a : b`, `if (name)`, `!name`, `name && ...`, `b = name || c`; not as an operand of a
    comparison or arithmetic (`s < lo ? lo : s`), a call's argument or a ternary's arm."""
    n = re.escape(name)
    if re.search(rf"(?:[-+]=|[/%])\s*{n}\b", code):
        return False  # a step or a divisor: its other truth value (0) would hang or divide by zero
    for m in re.finditer(rf"\b{n}\b", code):
        before = code[max(0, m.start() - 200) : m.start()].rstrip()  # the neighbours only: linear in the code
        after = code[m.end() : m.end() + 200].lstrip()
        if not after.startswith(("?", "&&", "||", ")")) or after.startswith("?:"):
            continue
        assigned = before.endswith("=") and not before.endswith(_COMPOUND)
        if before.endswith(("::", "->", ".")) or not (assigned or before.endswith(("(", ",", "!", "&&", "||"))):
            continue
        if after.startswith(")") and before.endswith(("(", ",")) and not re.search(r"\b(?:if|while)\s*\($", before):
            continue  # a call's argument, not a condition
        return True
    return False


def _flag_cases(spec: Spec, code: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """An integer scalar the kernel uses as a truth value (`inverse ? a : b`), the spec giving one
    truth value: the other one, so the branch the spec never takes is checked too."""
    out = []
    for name, a in params.items():
        if a.is_array or not a.dtype.startswith(("int", "uint", "bool")) or not isinstance(a.value, int):
            continue
        if isinstance(a.value, bool) or not _truth_value(code, name):
            continue
        other = 0 if a.value else 1
        label = f"`{a.name}` = {other}: the branch its value {a.value} never takes"
        out.append({"label": label, "args": {a.name: {"value": other}}})
    return out


SCALE = 1 << 15  # small integer weights times this leave 16 bits; sums of a few hundred stay in 32
_WEIGHT = 64  # the largest weight scaled (times SCALE: 2**21)


def _scaled_weight_cases(spec: Spec, code: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Small integer scalars the kernel only adds, subtracts or picks (a match score, a gap penalty:
    `c ? match : mismatch`, `h - gap`; never multiplied, shifted, masked, compared, a loop's bound or
    an index): all of them times SCALE together, so that every path the kernel takes stays the one
    it took (their ratios and signs kept) while the values it computes leave 16 bits, where a copy
    in a short (`short s = match`) or the low 16 bits of a sum differ."""
    names = []
    for name, a in params.items():
        if a.is_array or not a.dtype.startswith("int") or not isinstance(a.value, int) or isinstance(a.value, bool):
            continue
        if 0 < abs(a.value) <= _WEIGHT and _only_weighed(code, name, depth=2):
            names.append(a)
    if not names:
        return []
    label = ", ".join(f"`{a.name}` = {a.value * SCALE}" for a in names)
    return [
        {
            "label": f"{label} (times {SCALE} together: their ratios and signs kept, values past 16 bits)",
            "args": {a.name: {"value": a.value * SCALE} for a in names},
        }
    ]


_CODE_MAX = 1 << 16  # a kernel body longer than this gets no weights scaled (each name reads it whole)
_LOCALS_MAX = 8  # locals followed from one name, at most


def _only_weighed(code: str, name: str, depth: int) -> bool:
    """Whether `name` is used in `code`, and only as _weight_use allows, as is every local given a
    value from it (`int total = 31 + shift;` then `>> total`), `depth` locals deep."""
    if len(code) > _CODE_MAX:
        return False
    word = re.compile(rf"\b{re.escape(name)}\b")
    uses = list(word.finditer(code))
    if not uses or not all(_weight_use(code, m.start(), m.end()) for m in uses):
        return False
    statements = [s for s in code.split(";") if word.search(s)]
    if any(re.search(rf"\[[^\[\]]*\b{re.escape(name)}\b", s) for s in statements):
        return False  # an index
    given = set()
    for s in statements:  # each name given a value with it after (`int z = 0, g = gap;`: z and g)
        for target in re.finditer(r"\b(\w+)\s*[-+]?=(?!=)", s):
            if target.group(1) != name and word.search(s, target.end()):
                given.add(target.group(1))
    if len(given) > _LOCALS_MAX:
        return False
    return all(depth > 0 and _only_weighed(code, local, depth - 1) for local in given)


_PICKS = {"", "max", "min", "atomicAdd", "atomicMax", "atomicMin", "if", "while", "for", "return"}


def _callee(before: str) -> str:
    """The word before the innermost `(` left open in `before` ("" for none or a plain parenthesis;
    "?" where that `(` is out of `before`, which may be cut)."""
    depth = 0
    for k in range(len(before) - 1, -1, -1):
        depth += (before[k] == ")") - (before[k] == "(")
        if depth < 0:
            word = re.search(r"(\w*)\s*$", before[:k])
            return word.group(1) if word else ""
        if before[k] in ";{}":
            return ""
    return "?"


def _weight_use(code: str, start: int, end: int) -> bool:
    """Whether the name at code[start:end] is only added, subtracted, picked or passed on."""
    before, after = code[max(0, start - 200) : start].rstrip(), code[end : end + 200].lstrip()
    if re.match(r"[-+]?=(?!=)", after):  # given a value (its declaration, `h = max(h, ...)`)
        return True
    if not before or not after or before[-1] not in "+-?:,(=" or after[0] not in "+-:,);":
        return False
    if before.endswith(("++", "--", "<=", ">=", "==", "!=")) or after.startswith(("++", "--", "==")):
        return False
    if _callee(before) not in _PICKS:  # passed to a function whose use of it is not read here
        return False
    heads = list(re.finditer(r"\b(?:for|while|if)\s*\(", before))
    if not heads:
        return True
    inside = before[heads[-1].end() :]
    depth = 1
    for c in inside:
        depth += (c == "(") - (c == ")")
        if depth == 0:
            return True  # that head's parentheses closed before: not its condition
    return False


_SMALL = 8  # a constant a size is compared with up to here marks an edge case (`crop_w > 1 ? ... : ...`)
_CMP = r"(?:==|!=|<=|>=|<|>)"


def _alone_before(text: str, at: int) -> bool:
    before = text[max(0, at - 200) : at].rstrip()
    return not before or before.endswith(("&&", "||")) or before[-1] not in "+-*/%&|^~.>!"


def _alone_after(text: str, at: int) -> bool:
    after = text[at : at + 200].lstrip()
    return not after or after.startswith(("&&", "||")) or after[0] not in "+-*/%&|^[(.<"


def _compared_constants(code: str, name: str) -> list[int]:
    """The small whole constants `name` is compared with on its own in `code` (kernel_code): `name >
    1`, `2 <= name`; not `n - k >= 0`, `i + 1 < n` nor `!n == 0`; in order."""
    n = re.escape(name)
    out: list[int] = []
    for pattern in (rf"\b{n}\s*{_CMP}\s*(\d+)\b", rf"\b(\d+)\s*{_CMP}\s*{n}\b"):
        for m in re.finditer(pattern, code):
            if not (_alone_before(code, m.start()) and _alone_after(code, m.end())):
                continue  # an arithmetic operand on either side: the comparison is of a sum, not of `name`
            c = int(m.group(1))
            if c <= _SMALL and c not in out:
                out.append(c)
    return out


def _edge_cases(spec: Spec, code: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """An integer size or scalar the kernel compares with a small constant (`crop_w > 1 ? a : b`,
    `if (k == 1)`): the spec's values never meet it, so a mistake in the branch taken there (or a
    `>` for `>=`) passes; the case sets it to that constant (a size: its arrays and launch follow)."""
    out = []
    for name, a in params.items():
        if a.is_array or not a.dtype.startswith(("int", "uint")) or isinstance(a.value, bool):
            continue
        size = a.value if isinstance(a.value, str) and a.value in spec.sizes else None
        if size is None and not isinstance(a.value, int):
            continue
        now = spec.sizes[size] if size else a.value
        for c in _compared_constants(code, name):
            if c == now or (size and (c < 1 or not _valid_at(spec, {**spec.sizes, size: c}))):
                continue
            label = f"`{size or a.name}` = {c}: the edge of its comparison with {c}"
            out.append(
                {"label": label, "sizes": {size: c}} if size else {"label": label, "args": {a.name: {"value": c}}}
            )
    return out


_FLOAT = r"(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?[fF]?|\d+[eE][+-]?\d+[fF]?"
_CAST = r"(?:\(\s*[A-Za-z_]\w*\s*\)\s*)?"
_ORDERED = r"(?:<=|>=|(?<![<>-])<(?![<=])|(?<![<>-])>(?![>=]))"
_AFTER_CMP = re.compile(rf"{_ORDERED}\s*{_CAST}({_FLOAT})(?![\w.])")
_BEFORE_CMP = re.compile(rf"(?<![\w.])({_FLOAT})\s*{_ORDERED}")
MAX_TIE_CONSTANTS = 2


def _compared_floats(code: str) -> list[str]:
    """The float literals `code` (kernel_code) compares a value with by <, <=, > or >=, in order: not
    0 and not a whole number of -2 .. 2 (the whole-number case meets those)."""
    out: list[str] = []
    for pattern in (_AFTER_CMP, _BEFORE_CMP):
        for m in pattern.finditer(code):
            text = m.group(1)
            value = float(text.rstrip("fF"))
            if value != 0 and not (value == int(value) and abs(value) <= 2) and text not in out:
                out.append(text)
    return out


def _constant_tie_cases(spec: Spec, code: str) -> list[dict[str, Any]]:
    """Float inputs drawn from 0, +-c and +-sqrt(c) (init = "ties") for each float constant c the
    kernel compares a value with (at most MAX_TIE_CONSTANTS): the float arrays drawn at random, those
    read and written too, as the whole-number ties case takes them."""
    names = [
        a.name
        for a in spec.args
        if a.is_array and a.dtype in SPIKES and a.init in ("random", "uniform", "normal", "positive")
    ]
    if not names:
        return []
    out = []
    for text in _compared_floats(code)[:MAX_TIE_CONSTANTS]:
        value = float(text.rstrip("fF"))
        said = ", ".join(f"`{n}`" for n in names)
        label = f"{said} as 0, +-{value:g} and +-sqrt({value:g}) (ties with the constant `{text}` compared with)"
        out.append({"label": label, "args": {n: {"init": "ties", "value": value} for n in names}})
    return out


def shape_cases(spec: Spec, source: str) -> list[dict[str, Any]]:
    """The cases the kernel's code calls for, each {"label", "args"}; [] without a source."""
    params = _params(spec, source) if source else {}
    if not params:
        return []
    code = kernel_code(source, spec.kernel_base_name())
    return [
        *_root_scalar_cases(spec, source, params),
        *_negative_index_cases(spec, source, params),
        *_flag_cases(spec, code, params),
        *_scaled_weight_cases(spec, code, params),
        *_edge_cases(spec, code, params),
        *_constant_tie_cases(spec, code),
        *_lifted_index_cases(spec, code, params),
    ]


_WARP_OF = r"(?:threadIdx\.x\s*(?:>>\s*5|/\s*(?:32|warpSize)))"
_WARP_SUMS = re.compile(r"\b(\w+)\s*<\s*(\w+)\s*\?\s*(\w+)\s*\[\s*\1\s*\]")


def warp_sums(source: str) -> bool:
    """Whether one warp reduces the other warps' partial sums: `lane < nwarps ? s[lane] : ...` where
    `s` is a `__shared__` array written at a warp's number (`s[threadIdx.x >> 5]`, or a local set
    to it) and nwarps is a count of the block's warps (from blockDim)."""
    for m in _WARP_SUMS.finditer(source):
        count, shared = m.group(2), m.group(3)
        if not re.search(rf"__shared__[^;]*\b{re.escape(shared)}\s*\[", source):
            continue
        warp_ids = [_WARP_OF] + [re.escape(w.group(1)) for w in re.finditer(rf"\b(\w+)\s*=\s*{_WARP_OF}\s*;", source)]
        written = any(re.search(rf"\b{re.escape(shared)}\s*\[\s*{w}\s*\]\s*=[^=]", source) for w in warp_ids)
        counted = re.search(rf"\b{re.escape(count)}\s*=[^;]*blockDim\.x", source) or count == "warpSize"
        if written and counted:
            return True
    return False


def block_for_survivors(spec: Spec, source: str) -> dict[str, Any] | None:
    """The baseline at the largest x block size the space allows, where the kernel reduces its warps'
    partial sums in one warp (warp_sums): a loop over them cut short is right up to half a warp of
    warps (16 warps, 512 threads), so only a larger block tells it. None otherwise, or where the
    baseline is already the largest."""
    if not warp_sums(source):
        return None
    base = spec.baseline_params()
    name = (spec.block_size_names or ["block_size_x"])[0]
    values = [v for v in spec.tune_params.get(name, []) if isinstance(v, int)]
    for value in sorted(values, reverse=True):
        if spec.allows({**base, name: value}):
            return None if value == base.get(name) else {**base, name: value}
    return None
