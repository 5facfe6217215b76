"""Judging a launch spec against a corpus kernel's truth file (tests/corpus/truth/NAME.toml).

A truth file says, for one kernel of tests/corpus/:

  outputs = ["y"]              the arguments the kernel writes
  axes = 2                     how many grid axes it has
  domain = ["w", "h"]          per axis (x, y, z), what its bound checks cover: the threads needed
                               ("blocks:E": blocks needed, one per item; "any": a grid-stride loop); a
                               grid of more than twice that (and a block) leaves most threads idle
  [extents]  p = "3 * npart"   per pointer argument, the elements it can reach (of the kernel's type)
  [index]    map = "src"       an integer array whose values index another: each value in [0, bound)
  [values]   cells = [0, 2]    an array whose values must lie in [lo, hi) and take more than one value
                               (a float array: lie in [lo, hi] and not be one value)
  [scalars]  k = [1e-4, 0.25]  scalars that bound loops or scale coordinates: a value in [lo, hi]
  [spans]    scale = ["width", 0.05, 6.0]   scale * width in [lo, hi] (a view that reaches the set)
  [differ]   fw = "fh"         two scalars that size different things: unequal at some size the spec runs
                               (else a kernel that swaps them passes)
  [covers]   data = [0, 255]   an int array whose values must reach over all of [lo, hi) (bytes with the
                               high bit set tell `char` from `unsigned char`)
  [bytes]    y = 4             element bytes where the kernel's type is a template parameter
  [threads]  x = "BLOCK"       the most threads a block may have on that axis (a shared array of that
                               extent indexed by the thread number): every block size the spec tunes
  smem = "4 * nbins"           the bytes of dynamic shared memory (`extern __shared__`) the kernel reaches:
                               the spec's smem_size at least that, at every size (blockDim_x, ... name the
                               block's threads)
  unseen = true                one of the 12 "unseen-like" kernels of issue 21
  heldout = 1                  a held-out kernel, of batch 1, 2, ...: written, with its spec and truth, before
                               the drafter ever ran on it and never edited after; its score is the check
                               that drafter changes generalised (tests/corpus/heldout.toml: when each was seen)
  tuning = 35                  written (with spec and truth, before drafting) to develop the drafter for
                               issue 35's shapes: seen by the drafter's author, not held out

Expressions are over the kernel's scalar arguments (by the kernel's parameter names), the source's
#defines, gridDim_x/y/z and blockDim_x/y/z of the launch, and in [index] the arrays' lengths by
name. They are evaluated by the small walker below (+ - * / // % unary -, min, max), never eval.
"""

from __future__ import annotations

import ast
import math
import operator
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

TRUTH_KEYS = {
    "outputs",
    "axes",
    "domain",
    "extents",
    "index",
    "values",
    "scalars",
    "spans",
    "bytes",
    "threads",
    "unseen",
    "heldout",
    "tuning",
    "differ",
    "covers",
    "smem",
}
_OPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}
_CALLS = {"min": min, "max": max}
_VECTOR_BYTES = {
    f"{b}{n}": s * n
    for b, s in (
        ("float", 4),
        ("double", 8),
        ("int", 4),
        ("uint", 4),
        ("char", 1),
        ("uchar", 1),
        ("short", 2),
        ("ushort", 2),
        ("longlong", 8),
        ("ulonglong", 8),
    )
    for n in (1, 2, 3, 4)
} | {"cuFloatComplex": 8, "cuComplex": 8, "cufftComplex": 8, "cuDoubleComplex": 16, "cufftDoubleComplex": 16}


class JudgeError(ValueError):
    pass


def safe_eval(expr, names: dict):
    """An int or float from `expr` (a number, or text of + - * / // % unary minus, names, min/max)."""
    if isinstance(expr, bool):
        raise JudgeError(f"{expr!r}: not a number")
    if isinstance(expr, (int, float)):
        return expr
    try:
        tree = ast.parse(str(expr), mode="eval")
    except SyntaxError:
        raise JudgeError(f"{expr!r}: not an expression") from None

    def walk(node):
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in names:
                raise JudgeError(f"{expr!r}: unknown name {node.id!r}")
            return names[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            left, right = walk(node.left), walk(node.right)
            if isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)) and right == 0:
                raise JudgeError(f"{expr!r}: division by zero")
            return _OPS[type(node.op)](left, right)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = walk(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _CALLS
            and node.args
            and not node.keywords
        ):
            return _CALLS[node.func.id](*(walk(a) for a in node.args))
        raise JudgeError(f"{expr!r}: {type(node).__name__} is not allowed")

    return walk(tree)


def source_defines(src: str) -> dict:
    """Object-like #defines of the source whose values are numbers or expressions of earlier ones."""
    out: dict = {}
    text = re.sub(r"/\*.*?\*/", " ", src, flags=re.DOTALL)
    for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(?!\()[ \t]+(.*)$", text, flags=re.MULTILINE):
        value = m.group(2).split("//")[0].strip()
        value = re.sub(r"(?<=\d)[uUlLfF]+\b", "", value)
        try:
            out[m.group(1)] = safe_eval(value, out)
        except JudgeError:
            continue
    return out


@dataclass
class Truth:
    name: str
    outputs: list[str]
    axes: int
    domain: list[str]
    extents: dict[str, str]
    index: dict[str, str] = field(default_factory=dict)
    values: dict[str, list] = field(default_factory=dict)
    scalars: dict[str, list] = field(default_factory=dict)
    spans: dict[str, list] = field(default_factory=dict)
    bytes: dict[str, int] = field(default_factory=dict)
    threads: dict[str, str] = field(default_factory=dict)
    differ: dict[str, str] = field(default_factory=dict)
    covers: dict[str, list] = field(default_factory=dict)
    smem: str = ""
    unseen: bool = False
    heldout: int = 0
    tuning: int = 0


def load_truth(path: Path) -> Truth:
    data = tomllib.loads(path.read_text())
    extra = set(data) - TRUTH_KEYS
    if extra:
        raise JudgeError(f"{path}: unknown keys {sorted(extra)}")
    for key in ("outputs", "axes", "domain", "extents"):
        if key not in data:
            raise JudgeError(f"{path}: missing {key}")
    t = Truth(name=path.stem, **data)
    if len(t.domain) != t.axes:
        raise JudgeError(f"{path}: domain has {len(t.domain)} entries for {t.axes} axes")
    return t


def instantiation(src: str, spec_kernel: str) -> dict:
    """Template type parameter -> its bytes, where the spec names the kernel with its arguments
    (`gemv<double>`); {} otherwise. Read from the source's `template <...>` text, never run, its comments
    dropped first (a comment that says `template <typename T>` is not the kernel's head)."""
    src = re.sub(r"//[^\n]*|/\*.*?\*/", " ", src, flags=re.DOTALL)
    m = re.fullmatch(r"\s*(\w+)\s*<(.*)>\s*", spec_kernel)
    if not m:
        return {}
    head = re.search(r"template\s*<([^;{}]*)>\s*(?:extern\s*)?__global__[^;{]*?\b" + m.group(1) + r"\s*\(", src)
    if not head:
        return {}
    names = [re.findall(r"\w+", p.split("=")[0]) for p in head.group(1).split(",")]
    given = [a.strip() for a in m.group(2).split(",")]
    out = {}
    for words, arg in zip(names, given):
        if len(words) == 2 and words[0] in ("typename", "class"):
            try:
                out[words[1]] = _type_bytes(arg)
            except JudgeError:
                continue
    return out


def _type_bytes(base: str) -> int:
    if base in _VECTOR_BYTES:
        return _VECTOR_BYTES[base]
    from kt_tui.kernel.spec import DTYPES

    dtype = DTYPES.get(base)
    if dtype is None:
        raise JudgeError(f"element type {base!r} unknown")
    return int("".join(c for c in dtype if c.isdigit())) // 8


def elem_bytes(param, truth: Truth, template: dict | None = None) -> int:
    """Bytes of one element of a kernel pointer parameter: for a template type, the spec's
    instantiation of it (`template`, from instantiation()), else the truth's [bytes]."""
    if template and param.base_type in template:
        return template[param.base_type]
    if param.name in truth.bytes:
        return truth.bytes[param.name]
    base = param.base_type
    if base in _VECTOR_BYTES:
        return _VECTOR_BYTES[base]
    from kt_tui.kernel.spec import DTYPES

    dtype = DTYPES.get(base)
    if dtype is None:
        raise JudgeError(f"{param.name}: element type {base!r} unknown; give it in [bytes]")
    return int("".join(c for c in dtype if c.isdigit())) // 8


def launch(spec, sizes: dict, params: dict) -> dict:
    """gridDim_* and blockDim_* as kernel_tuner computes them for `spec` at `sizes` and `params`."""
    from kt_tui.kernel.expr import evaluate

    names = {**params, **sizes}
    ps = [int(evaluate(p, names)) for p in spec.problem_size] + [1, 1, 1]
    bnames = spec.block_size_names or ["block_size_x", "block_size_y", "block_size_z"]
    out = {}
    for i, axis in enumerate("xyz"):
        block = params.get(bnames[i], 256 if i == 0 else 1) if i < len(bnames) else 1
        divs = getattr(spec, f"grid_div_{axis}")
        div = params.get(bnames[i], 1) if divs is None and i < len(bnames) else 1
        for d in divs or []:
            div *= evaluate(d, names)
        out[f"gridDim_{axis}"] = max(1, math.ceil(ps[i] / div))
        out[f"blockDim_{axis}"] = int(block)
    return out


def points(spec) -> list[tuple[str, dict]]:
    """(label, sizes) where the spec runs: its sizes, then each size its checks use."""
    return [("default", dict(spec.sizes))] + [(e["label"], e["sizes"]) for e in spec.extra_sizes()]


def value_range(arg, sizes: dict, functions: dict | None = None):
    """[low, high) of an integer array's initial values, or None when a spec alone cannot tell.
    `functions`: callables for init = "function" references that the caller trusts (the hand specs'
    own gen.py in the tests; a draft's are never called)."""
    from kt_tui.kernel.expr import evaluate
    from kt_tui.kernel.spec import random_bounds

    init = arg.init
    if init in ("random", "uniform", "positive", "normal", "offsets"):
        return random_bounds(arg, sizes)
    if init == "zeros":
        return 0, 1
    if init == "ones":
        return 1, 2
    if init == "range":
        return 0, int(evaluate(arg.size, sizes)) * arg.lanes
    if init == "constant":
        v = evaluate(arg.value, sizes)
        return v, v + 1
    if init == "function" and functions and arg.function in functions:
        values = functions[arg.function](dict(sizes))
        return int(values.min()), int(values.max()) + 1
    return None  # poison, file, copy, a function not given


def judge(spec, kernel, src: str, truth: Truth, functions: dict | None = None) -> dict:
    """Per concern, the problems found ([] = right): sizes, outputs, geometry, scalars."""
    from kt_tui.kernel.expr import evaluate

    problems = {"sizes": [], "outputs": [], "geometry": [], "scalars": []}
    args = {p.name: a for p, a in zip(kernel.params, spec.args)}
    outs = sorted(p.name for p, a in zip(kernel.params, spec.args) if a.output)
    if outs != sorted(truth.outputs):
        problems["outputs"].append(f"outputs {outs}, want {sorted(truth.outputs)}")
    defines = source_defines(src)
    template = instantiation(src, spec.kernel)
    params = spec.baseline_params()
    axes = len(spec.problem_size)
    while axes > 1 and str(spec.problem_size[axes - 1]).strip() == "1":
        axes -= 1
    if axes != truth.axes:
        problems["geometry"].append(f"{axes} grid axes, the kernel has {truth.axes}")
    for axis, most in truth.threads.items():
        name = f"block_size_{axis}"
        tuned = [v for v in spec.tune_params.get(name, [params.get(name, 1)]) if isinstance(v, int)]
        limit = safe_eval(most, defines)
        if tuned and max(tuned) > limit:
            problems["geometry"].append(f"{name} up to {max(tuned)}: more threads than the {limit} a block holds")
    seen_pairs: dict[tuple[str, str], set[bool]] = {}
    for label, sizes in points(spec):
        where = "" if label == "default" else f" at {label}"
        try:
            names = {**defines, **spec.define_values(sizes), **launch(spec, sizes, params)}
            for p in kernel.params:
                if not p.is_pointer:
                    names[p.name] = evaluate(args[p.name].value, sizes)
        except Exception as e:  # noqa: BLE001  (a draft whose values do not evaluate: said, not raised)
            problems["sizes"].append(f"cannot instantiate{where}: {e}")
            continue
        lengths = {}
        for p in kernel.params:
            if not p.is_pointer:
                continue
            a = args[p.name]
            have = int(evaluate(a.size, sizes)) * a.lanes * _dtype_bytes(a.dtype)
            eb = elem_bytes(p, truth, template)
            lengths[p.name] = have // eb
            need = safe_eval(truth.extents[p.name], names) * eb
            if have < need:
                problems["sizes"].append(f"{p.name}: {have // eb} < {need // eb}{where}")
        for name, bound_expr in truth.index.items():
            bound = safe_eval(bound_expr, {**names, **lengths})
            r = value_range(args[name], sizes, functions)
            if r is None or r[0] < 0 or r[1] > bound:
                problems["sizes"].append(f"{name}: values {_range_text(r, args[name])} index [0, {bound}){where}")
        for name, (lo, hi) in truth.values.items():
            r = value_range(args[name], sizes, functions)
            one = r is not None and (r[1] <= r[0] if args[name].dtype.startswith("float") else r[1] - r[0] < 2)
            if r is None or r[0] < lo or r[1] > hi or one:
                problems["sizes"].append(f"{name}: values {_range_text(r, args[name])}, want [{lo}, {hi}){where}")
        for name, (lo, hi) in truth.scalars.items():
            v = names[name]
            lo_v, hi_v = safe_eval(lo, names), safe_eval(hi, names)
            if not lo_v <= v <= hi_v:
                problems["scalars"].append(f"{name} = {v:g}, want [{lo_v:g}, {hi_v:g}]{where}")
        for name, (lo, hi) in truth.covers.items():
            r = value_range(args[name], sizes, functions)
            if r is None or r[0] > lo or r[1] < hi:
                problems["sizes"].append(
                    f"{name}: values {_range_text(r, args[name])}, want all of [{lo}, {hi}){where}"
                )
        if truth.smem:
            need = safe_eval(truth.smem, names)
            have = int(evaluate(spec.smem_size, {**params, **sizes})) if spec.smem_size is not None else 0
            if have < need:
                problems["sizes"].append(f"smem_size: {have} bytes < {need:g}{where}")
        for a, b in truth.differ.items():
            seen_pairs.setdefault((a, b), set()).add(names[a] == names[b])
        for name, (by, lo, hi) in truth.spans.items():
            span = names[name] * safe_eval(by, names)
            if not lo <= span <= hi:
                problems["scalars"].append(f"{name} * {by} = {span:g}, want [{lo:g}, {hi:g}]{where}")
        if axes == truth.axes:
            for i, d in enumerate(truth.domain):
                axis = "xyz"[i]
                grid, block = names[f"gridDim_{axis}"], names[f"blockDim_{axis}"]
                if d == "any":
                    continue
                if d.startswith("blocks:"):
                    need = safe_eval(d.removeprefix("blocks:"), names)
                    if grid < need:
                        problems["geometry"].append(f"grid {axis}: {grid} blocks < {need}{where}")
                    elif grid > 2 * need:
                        problems["geometry"].append(f"grid {axis}: {grid} blocks for {need} items (most idle){where}")
                else:
                    need = safe_eval(d, names)
                    if grid * block < need:
                        problems["geometry"].append(f"grid {axis}: {grid * block} threads < {need}{where}")
                    elif grid * block > 2 * need + block:
                        problems["geometry"].append(
                            f"grid {axis}: {grid * block} threads for {need} (most idle){where}"
                        )
    for a, b in truth.differ.items():
        if seen_pairs.get((a, b)) == {True}:
            problems["scalars"].append(f"{a} = {b} at every size: a kernel that swaps them passes")
    return {k: list(dict.fromkeys(v)) for k, v in problems.items()}


def _range_text(r, arg) -> str:
    return f"[{r[0]:g}, {r[1]:g})" if r else f"unknown (init = {arg.init})"


def _dtype_bytes(dtype: str) -> int:
    return int("".join(c for c in dtype if c.isdigit()) or 8) // 8
