"""A first-guess launch spec from a kernel's index math, for the user to correct before anything runs.

The kernel is parsed (kernel/cuda_ast.py) and its subscripts bounded (kernel/extents.py): each array is
sized by the largest index the kernel can reach, the problem size has one entry per thread axis the
kernel bounds, outputs are the arrays it writes (in device functions and atomics too), an int array
is an index array only when its values index another array. Every value the analysis could not derive
is a guess, marked `# guess:` in the TOML and listed by `kt-tui spec`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import (
    cuda_ast,
    draft_below,
    draft_columns,
    draft_divisors,
    draft_dof,
    draft_guards,
    draft_logs,
    draft_masked,
    draft_moments,
    draft_names,
    draft_networks,
    draft_partials,
    draft_passes,
    draft_periods,
    draft_radix,
    draft_relations,
    draft_relax,
    draft_roles,
    draft_rows,
    draft_shared,
    draft_sound,
    draft_uses,
    draft_values,
    draft_within,
    extents,
)
from .conditions import Macros
from .draft_flags import LOOP_COUNT, fit_windows, window_over, window_value
from .draft_floats import FLOAT_SCALAR, MADE_UP, divisors, float_value
from .draft_layout import whole
from .draft_rows import ROW_SPAN, buckets_per_items, offsets_for_rows, representable, row_stride, rows_written
from .draft_sizes import Sizing, size_arrays
from .draft_template import template_name
from .draft_trips import thread_trips, trip_value
from .draft_types import (
    array_of,
    as_bytes,
    compiled_structs,
    element_type,
    int_lane,
    is_int,
    is_signed,
    is_unsigned,
    launch_shapes,
    struct_by_value,
    typed_params,
    vector_arg,
    whole_range,
)
from .source import Kernel, kernel_alone, kernel_body
from .spec import DTYPES, VECTORS, Arg, Spec, default_verify_sizes, dump_spec
from .spec_model import int_range
from .vector_layout import vector_aliases
from .vectors import VECTOR_NAMES, vector_parts

ESCAPE_ITERATIONS = 256  # the bound of an escape-time loop (it also stops on a float test)
INT_SCALARS = (3, 5, 7, 4, 6)  # ints that size nothing seen: one each, apart, so a kernel that swaps two fails
CLAMP = {"int": (-50, 50), "uint": (25, 75), "float": (-0.5, 0.5)}  # inside the drafted values on both sides
STENCIL_STEP = 0.1  # below 1 / (2 * axes) for up to 3 axes: an explicit diffusion step that stays stable
STEP_WHY = "it scales differences of neighbouring reads (a stencil step); small so an explicit step stays stable"
# 8- and 16-bit integers nothing bounds (bytes, pixels, voxels): over the type's range
CYCLES = 0.1  # a frequency in cycles per sample
CYCLES_WHY = (
    "times a sample's number in what a sinpi or cospi takes, a frequency in cycles per sample: one past "
    "[-0.5, 0.5) only aliases one inside, and a large one loses the phase's precision"
)
UNSIGNED = ("uint8", "uint16", "uint32", "uint64")

_NARROW = ("uint8", "int8", "uint16", "int16")
# an output summed by float atomics: rounding in another order, for addends up to the draft's 100 in
# size, a few hundred of them an element (float32 eps 1.2e-7 * 100 * 256 ~ 3e-3, then room)
SUMMED_ATOL = {"float32": 0.1, "float16": 10.0}
WEIGHTS = 100  # the bound of edge weights added to a distance: small beside a sentinel, many values


@dataclass
class Draft:
    spec: Spec
    guesses: list[tuple[str, str]] = field(default_factory=list)  # (what it is about, the guess)

    def text(self) -> str:
        """The spec as TOML, each guess as a `# guess:` comment above what it is about."""
        lines = dump_spec(self.spec).splitlines()
        about: dict[str, list[str]] = {}
        for about_key, what in self.guesses:
            about.setdefault(about_key, []).append(what)
        out = [f"# guess: {w}" for w in about.pop("", [])]
        section = ""
        for i, line in enumerate(lines):
            if line.startswith("["):
                section = line.strip("[] ")
            key: str | None = None
            m = re.match(r"^([A-Za-z_]\w*) = ", line)
            if section == "args" and line.startswith("[[args]]"):
                name = re.match(r'^name = "(.*)"$', lines[i + 1]) if i + 1 < len(lines) else None
                key = f"args.{name.group(1)}" if name else None
            elif m and section in ("sizes", ""):
                key = f"{section}.{m.group(1)}" if section else m.group(1)
            out += [f"# guess: {w}" for w in about.pop(key, [])] if key else []
            out.append(line)
        for rest in about.values():
            out += [f"# guess: {w}" for w in rest]
        return "\n".join(out) + "\n"

    def lines(self) -> list[str]:
        return [f"{key}: {what}" if key else what for key, what in self.guesses]


def draft(
    kernel: Kernel,
    src: str = "",
    n: int = 1 << 20,
    headers: Sequence[str] = (),
    options: Sequence[str] = (),
    names: Macros | None = None,
) -> Draft:
    """The draft of `kernel`'s launch spec from `src` (its file); from the signature alone without it.
    `headers`: the texts of the local headers it includes (kernel/headers.py), for the structs they define;
    `options`, `names`: the spec's compiler options and the names kernel_tuner defines from it
    (conditions.spec_names), which decide which of the source's aliases and structs are compiled."""
    why = ""
    kernel = launch_shapes(kernel)
    if src:
        kernel = typed_params(kernel, vector_aliases(src, options, names))  # vec4 v: a float4 (typedef float4 vec4)
        try:
            unit = cuda_ast.parse(
                src if len(src.encode("utf-8", "replace")) <= cuda_ast.MAX_SOURCE else kernel_alone(src, kernel)
            )
            compiled_structs(unit, src, options, names)
            unit.structs.setdefault("dim3", ("uint32", 3))  # three unsigned ints, as uint3
            for header in headers:  # the kernel file's own definition of a name stands
                for name, struct in cuda_ast.parse(header).structs.items():
                    unit.structs.setdefault(name, struct)
            params = draft_roles.template_params(src, kernel.name) or []
            body = kernel_body(src, kernel)
            values, compiled = draft_roles.instantiated_values(
                src, kernel.name, params, draft_roles.template_values(body, params)
            )
            for name, value in values.items():  # a value template parameter is a number, as a #define is
                unit.defines.setdefault(name, value)
            types = draft_roles.template_types(src, kernel.name, body, params, {**DTYPES, **VECTOR_NAMES})
            for kind, name in params:  # a type parameter is the type the source means it for, else float
                if kind == "type":
                    t = types.get(name, "float")
                    unit.structs.setdefault(name, (DTYPES[t], 1) if t in DTYPES else vector_parts(t))
            kernel = typed_params(kernel, types)
            fn = unit.kernels.get(kernel.name)
            if fn is not None and (said := cuda_ast.unread_params(fn, [p.name for p in kernel.params])):
                return _from_signature(kernel, n, said)
            analysis = extents.analyse(unit, kernel.name)
            if fn is not None and analysis is not None and analysis.ok:
                d = _instantiated(_from_analysis(kernel, unit, analysis, n), kernel, src, values, types, compiled)
                draft_rows.highs_above_lows(d.spec, d.guesses)
                if said := cuda_ast.unread(fn.body, {p.name for p in kernel.params}):
                    d.guesses.append(("", f"the parser could not read part of the kernel's body, first at {said}"))
                return d
            near = f", first at {unit.unread}" if unit.unread else ""
            why = " (too long to follow)" if fn else f" (the parser could not read its definition{near})"
        except Exception as e:  # noqa: BLE001  a best effort: a draft from the signature stands in, said so
            why = f" (the analysis stopped: {type(e).__name__})"
    return _from_signature(kernel, n, why)


SIGNED_SPAN = 1000  # a sign-tested int32/int64 input: both signs, small enough that sums of thousands stay exact


def _instantiated(
    d: Draft, kernel: Kernel, src: str, values: dict[str, int], types: dict[str, str], compiled: bool = False
) -> Draft:
    if "<" not in d.spec.kernel and (named := template_name(src, kernel.name, values, types, compiled)):
        d.spec.kernel = named[0] or d.spec.kernel
        d.guesses.append(("", named[1]))
    return d


def draft_spec(kernel: Kernel, n: int = 1 << 20, src: str = "") -> Spec:
    return draft(kernel, src, n).spec


def _tuning(sizing: Sizing, caps: dict[int, int] | None = None) -> dict[str, Any]:
    """Block sizes to tune per axis; an axis of one block per element (blockIdx alone) has no block
    size there and no grid divisor, one scaled by a #define (or stepped by a constant) keeps that
    block size, or the fewer a shared array holds (a loop walks the rest; the #define divides the
    grid); `caps`: the most threads per axis a shared array indexed by the thread number holds;
    `per_item`: threads that work on one item together (a warp), so a block holds whole items;
    `folded`: items of a grid axis numbered by another axis's threads (a warp per row on 2-D blocks),
    so the grid there is divided by that block size."""
    rank = len(sizing.problem_size)
    block_axes, consts, per_item, caps = sizing.no_threads, sizing.block_consts, sizing.per_item, caps or {}
    lanes = set(sizing.folded.values())  # threads that number another axis's items: a block size, no grid
    flat = all(a in block_axes for a in range(1, rank))
    values = {0: [32, 64, 128, 256, 512, 1024] if flat else [16, 32, 64, 128], 1: [1, 2, 4, 8, 16], 2: [1, 2, 4]}
    first = {0: 256 if flat else 32, 1: 4, 2: 1}
    for a, cap in caps.items():
        if a in values:
            values[a] = [v for v in values[a] if v <= cap] or [cap]
            first[a] = min(first[a], values[a][-1])
    for a, k in per_item.items():
        if a in values:
            values[a] = [v for v in values[a] if v % k == 0] or [k]
            first[a] = max(first[a], values[a][0])
    tune: dict[str, list[int]] = {}
    defaults: dict[str, int] = {}
    div: dict[int, list[str]] = {}
    for a in range(max(rank, sizing.block_rank)):
        name = f"block_size_{extents.AXES[a]}"
        if a in block_axes and a not in lanes:
            div[a] = []
            if a > 0:
                continue
        if a in sizing.tiles:  # `blockIdx.y * TILE` and no threadIdx.y: one thread there, TILE items a block
            tune[name], defaults[name], div[a] = [1], 1, [str(sizing.tiles[a])]
        elif a in consts and caps.get(a, consts[a]) < consts[a]:  # fewer threads than items: a loop walks them
            tune[name], defaults[name], div[a] = [caps[a]], caps[a], [str(consts[a])]
        elif a in consts:
            tune[name], defaults[name] = [consts[a]], consts[a]
        else:
            tune[name], defaults[name] = values[a], first[a]
    for a, b in sizing.folded.items():
        div[a] = [f"block_size_{extents.AXES[b]}"]
    both = max(tune.get("block_size_x", [1])) * max(tune.get("block_size_y", [1])) > 1024
    return {
        "tune_params": tune,
        "defaults": defaults,
        "grid_div_x": div.get(0),
        "grid_div_y": div.get(1, ["block_size_y"]) if rank > 1 else None,
        "grid_div_z": div.get(2, ["block_size_z"]) if rank > 2 else None,
        "restrictions": ["block_size_x * block_size_y <= 1024"] if both else [],
    }


def _from_signature(kernel: Kernel, n: int, why: str) -> Draft:
    """No body to read: every array `n` long, every non-const pointer an output, all of it a guess."""
    args: list[Arg] = []
    guesses = [
        (
            "",
            (
                f"the kernel's body was not read{why}: every array is sized n and every pointer not "
                "const is taken as an output"
            ),
        )
    ]
    for p in kernel.params:
        dtype = element_type(p)
        if p.is_pointer:
            out = "const" not in p.ctype.split("*")[0]
            args.append(
                Arg(
                    name=p.name,
                    type=dtype,
                    size="n",
                    init="poison" if out else "random",
                    seed=len(args) + 1,
                    output=out,
                )
            )
        elif vector := vector_arg(p):
            args.append(vector[0])
        elif is_int(dtype):
            args.append(Arg(name=p.name, type=dtype, init="constant", value="n"))
        else:
            args.append(Arg(name=p.name, type=dtype, init="constant", value=FLOAT_SCALAR))
    _ensure_output(args, guesses)
    spec = Spec(
        kernel=kernel.name, args=args, problem_size=["n"], sizes={"n": n}, **_tuning(Sizing(problem_size=["n"]))
    )
    return Draft(spec, guesses)


def _ensure_output(args: list[Arg], guesses: list[tuple[str, str]]) -> None:
    if args and not any(a.output for a in args):
        for a in args:
            if a.is_array:
                a.output, a.init = True, "poison"
                guesses.append((f"args.{a.name}", "no array is written; this one is taken as the output"))
                break


def _from_analysis(kernel: Kernel, unit: cuda_ast.Unit, an: extents.Analysis, n: int) -> Draft:
    fn = unit.kernels[kernel.name]
    caps = draft_shared.shared_thread_caps(fn, unit)
    sizing: Sizing = size_arrays(kernel, unit, an, n, caps)
    guesses = sizing.guesses
    uses = an.uses
    free = {p.name for p in kernel.params if not p.is_pointer and p.name not in sizing.sizes}
    bounds = draft_roles.clamp_bounds(fn, free)
    if set(bounds.values()) != {"lower", "upper"}:
        bounds = {}  # one side alone is no pair to order
    floats = {p.name for p in kernel.params if not p.is_pointer and element_type(p).startswith("float")}
    small = {  # float scalars whose use wants a small value
        **{n: (STENCIL_STEP, STEP_WHY) for n in draft_roles.stencil_coefficients(fn, floats & free)},
        **{n: (draft_guards.EPSILON, draft_guards.EPSILON_WHY) for n in draft_guards.regularizers(fn, floats & free)},
    }
    float_arrays = {p.name for p in kernel.params if p.is_pointer and element_type(p).startswith("float")}
    cycled, cycles = draft_values.cycles(fn, float_arrays, floats & free)
    small.update({n: (CYCLES, CYCLES_WHY) for n in cycles})
    small.update(draft_guards.guard_values(fn, floats & free, free - floats, unit.defines))
    small.update(draft_relax.relaxation_values(fn, floats & free, free - floats - set(small)))

    positive = draft_divisors.summed_divisors(fn, float_arrays)
    fractions = draft_roles.fraction_inputs(fn, float_arrays)
    powers = draft_roles.exponents(fn, floats)
    gaussian = [p.name for p in kernel.params if p.name in draft_roles.exp_factors(fn, floats & free, squares=True)]
    exp_scales = draft_roles.exp_factors(fn, floats & free) - set(gaussian)
    divided = divisors(fn, floats & free)
    averages = draft_moments.average_values(unit, kernel.name, floats & free)
    int_arrays = {p.name for p in kernel.params if p.is_pointer and is_int(element_type(p))}
    small.update(draft_divisors.count_scale_values(fn, floats & free - set(small), int_arrays))
    small.update(draft_divisors.dividend_values(fn, floats & free - set(small)))
    halved = draft_divisors.halved_divisors(fn, free - floats)
    sentinels = {a for a in int_arrays if draft_roles.sentinel(an, a, unit.defines) is not None}
    weights = draft_roles.offered_weights(fn, sentinels, int_arrays)
    signed = {p.name for p in kernel.params if p.is_pointer and is_signed(element_type(p))}
    exp_data = draft_roles.exp_data(fn, signed)
    reduced = draft_values.reduced(fn, int_arrays)
    unsigned = {
        p.name: np.iinfo(element_type(p)).bits for p in kernel.params if p.is_pointer and element_type(p) in UNSIGNED
    }
    packed = {  # 32-bit signed words: packed bytes (`__dp4a`) or hashed bits
        p.name: 32 for p in kernel.params if p.is_pointer and element_type(p) == "int32" and p.name not in unsigned
    }
    words = draft_values.words(fn, set(unsigned) | set(packed), {**unsigned, **packed}, unit.devices) - set(reduced)
    measured = draft_values.measured(fn, int_arrays, floats)
    trips = thread_trips(fn, an.loop_bounds - an.escape_bounds)
    used = draft_uses.uses(fn, {p.name for p in kernel.params if p.is_pointer}, unit.devices)
    args: list[Arg] = []
    rows: dict[str, tuple[str | int, int]] = {}  # an int array read as a loop's bounds: its values' bound, its guess
    for p in kernel.params:
        dtype = element_type(p)
        if p.is_pointer:
            use = uses.get(p.name) or extents.Use()
            out = use.written
            if not out:
                init = "random"
            elif use.atomic and not use.assigned and not use.compound:
                init = "zeros"
            elif use.read or use.compound:
                init = "random"
            else:
                init = "poison"
            dtype, size = array_of(p, unit, sizing.extents.get(p.name, sizing.fallback), guesses)
            if dtype == "uint8" and init == "random" and as_bytes(p):
                init = "zeros"  # a struct as bytes: random bytes would make any int field in it an index anywhere
            arg = Arg(name=p.name, type=dtype, size=size, init=init, seed=len(args) + 1, output=out)
            lane = VECTORS.get(dtype, (dtype, 1))[0]  # a float2's atomics add to its float components
            if use.summed and lane in SUMMED_ATOL:
                arg.atol = SUMMED_ATOL[lane]
                guesses.append(
                    (
                        f"args.{p.name}",
                        f"atol = {arg.atol}: float atomicAdd sums in the order the blocks run, so each element "
                        "may differ by its addends' rounding from run to run (not a wrong kernel)",
                    )
                )
            if p.name in an.loop_loads and not out and is_int(dtype):
                top = representable(dtype, sizing.index_high.get(p.name, ROW_SPAN), sizing.sizes, guesses, p.name)
                rows[p.name] = (top, len(guesses))  # row offsets, when they delimit rows (_offsets_for_rows)
            if p.name in sizing.index_high and p.name in an.loop_loads and not out and rows_written(an, p.name):
                arg.init = "range"
                guesses.append(
                    (
                        f"args.{p.name}",
                        (
                            "values 0, 1, 2, ...: they bound a loop (row offsets) over elements the kernel writes, "
                            "so each row gets one element of its own; give real offsets for real work"
                        ),
                    )
                )
            elif p.name in an.loop_loads and not out and is_int(dtype):
                high = rows[p.name][0]
                arg.low, arg.high = 0, f"min({high}, {ROW_SPAN})" if isinstance(high, str) else min(high, ROW_SPAN)
                guesses.append(
                    (
                        f"args.{p.name}",
                        (
                            f"values at random below {ROW_SPAN}: they bound a loop (row offsets) over elements the "
                            f"kernel only reads, so rows of 0 to {ROW_SPAN - 1} elements are checked (unsorted: a "
                            "row that ends before it starts is empty); give real offsets for real work"
                        ),
                    )
                )
            elif not out and p.name in reduced and (is_unsigned(dtype) or reduced[p.name] == "&"):
                arg.low, arg.high = whole_range(dtype)
                guesses.append(
                    (
                        f"args.{p.name}",
                        f"{dtype} values over the type's range: every load is reduced (`{reduced[p.name]}`) before "
                        "use, so any value is safe, and high bits tell a wrong width or sign",
                    )
                )
            elif (not out or init == "random") and p.name in words:  # a state read and written back (an RNG's)
                arg.low, arg.high = whole_range(dtype)
                guesses.append(
                    (
                        f"args.{p.name}",
                        f"{dtype} values over the type's range: every load is only taken apart as bits (xor, or, "
                        "and, shifts, popcount, equality; or scaled onto [0, 1) as a uniform draw), never an index, "
                        "a count or a divisor, so any value is safe, and high bits tell a wrong width or sign",
                    )
                )
            elif p.name in sizing.index_high:
                arg.init = "random" if not out else arg.init  # index values, not bytes of a struct
                arg.low, arg.high = 0, representable(dtype, sizing.index_high[p.name], sizing.sizes, guesses, p.name)
            elif (
                (int_of := int_lane(dtype)) is not None
                and not out
                and (tested := draft_within.tested_values(an, p.name, np.iinfo(int_of).max, unit.defines, sizing.sizes))
            ):
                arg.low, arg.high, why = tested
                guesses.append((f"args.{p.name}", f"values in [{arg.low}, {arg.high}): {why}"))
            elif is_signed(dtype) and not out and use.sign and not use.nonneg and p.name not in measured:
                least, most = int_range(dtype) if dtype in ("int8", "int16") else (-SIGNED_SPAN, SIGNED_SPAN - 1)
                arg.low, arg.high = least, most + 1  # high is past the last value drawn
                guesses.append(
                    (
                        f"args.{p.name}",
                        f"{dtype} values of both signs ({arg.low} to {arg.high - 1}): the kernel tests their sign "
                        "(compares them with 0); a draw of only 0 and 1 never reaches the other side",
                    )
                )
            elif is_int(dtype) and not out and use.compared and p.name not in measured:
                arg.low, arg.high = 0, 2
                guesses.append((f"args.{p.name}", "values 0 or 1: the kernel tests them as flags or counts them"))
            elif p.name in weights and not out:
                arg.low, arg.high = 0, WEIGHTS
                guesses.append(
                    (
                        f"args.{p.name}",
                        f"values in [0, {WEIGHTS}): added to a distance in an atomic min or max (weights of a "
                        "relaxation), not negative",
                    )
                )
            elif is_int(dtype) and use.nonneg:
                arg.low = 0
            elif p.name in positive and arg.init == "random":
                arg.init = "positive"
                guesses.append((f"args.{p.name}", "values above 0: they are summed into a divisor"))
            elif p.name in cycled and arg.init == "random" and not out:
                arg.init, arg.low, arg.high = "uniform", -0.5, 0.5
                guesses.append((f"args.{p.name}", f"values in [-0.5, 0.5): {CYCLES_WHY}"))
            elif p.name in fractions and arg.init == "random":
                arg.init, arg.low, arg.high = "uniform", 0, 1
                guesses.append(
                    (
                        f"args.{p.name}",
                        "values in [0, 1): converted to an integer, they index an array (a bin), so none is negative",
                    )
                )
            draft_uses.narrow(arg, used.get(p.name), guesses)
            if p.name in exp_data and arg.init == "random" and arg.low is None and arg.high is None:
                arg.low, arg.high = -1, 2
                guesses.append(
                    (
                        f"args.{p.name}",
                        "values -1, 0 and 1: products of them reach an exponential, which wider values overflow "
                        "(every output past it the same); give the values you use",
                    )
                )
            elif dtype in _NARROW and arg.init == "random" and arg.high is None:  # a low of 0: not negative
                low, arg.high = whole_range(dtype)
                arg.low = low if arg.low is None else max(low, 0)
                guesses.append(
                    (
                        f"args.{p.name}",
                        f"{dtype} values from {arg.low} to {arg.high - 1}: high bits set, so a kernel that reads "
                        "them with the wrong sign or masks them off fails",
                    )
                )
            elif is_unsigned(dtype) and arg.init == "random" and arg.low is None:
                arg.low = 0  # an unsigned type holds no negative value
            args.append(arg)
        elif vector := vector_arg(p):
            args.append(vector[0])
            guesses.append((f"args.{p.name}", vector[1]))
        elif p.name in sizing.sizes:
            args.append(Arg(name=p.name, type=dtype, init="constant", value=p.name))
        elif p.name in sizing.derived:
            args.append(Arg(name=p.name, type=dtype, init="constant", value=sizing.derived[p.name]))
        elif p.name in bounds:
            kind = "float" if dtype.startswith("float") else "uint" if is_unsigned(dtype) else "int"
            value = CLAMP[kind][bounds[p.name] == "upper"]
            args.append(Arg(name=p.name, type=dtype, init="constant", value=value))
            guesses.append(
                (
                    f"args.{p.name}",
                    f"{value}: the {bounds[p.name]} bound of a clamp or range, ordered with its other bound "
                    "and inside the values it bounds",
                )
            )
        elif p.name in small:
            value, why = small[p.name]
            args.append(Arg(name=p.name, type=dtype, init="constant", value=value))
            guesses.append((f"args.{p.name}", f"{value}: {why}"))
        elif is_int(dtype):
            window = window_over(an, p.name, set(sizing.sizes)) if p.name in an.loop_bounds else None
            row = row_stride(p.name, an, sizing, args) if p.name not in an.loop_bounds else None
            count: int | str
            if p.name in an.escape_bounds:
                count, why = ESCAPE_ITERATIONS, "the bound of an escape-time loop"
            elif window is not None:
                count = window_value(window)
                why = f"it bounds the loop over {window} with {window} (a window sliding over it): below it, above 1"
            elif row is not None:
                count, span = row
                why = (
                    f"it steps from one row to the next of an array whose rows span {span} (the column's bound): "
                    f"at least {span} and padded, or rows overlap; set the stride you use"
                )
            elif p.name in trips:
                count = trip_value({*sizing.sizes.values()} | {a.value for a in args if not a.is_array})
                why = "a loop count within each thread that sizes nothing: small, as each check run pays every trip"
            elif p.name in an.loop_bounds:
                count, why = LOOP_COUNT, "a loop count that sizes no array"
            else:
                plain = sum(1 for a in args if not a.is_array and is_int(a.type) and a.value in INT_SCALARS)
                taken = {v for v in sizing.sizes.values()} | {a.value for a in args if not a.is_array}
                turn = [INT_SCALARS[(plain + k) % len(INT_SCALARS)] for k in range(len(INT_SCALARS))]
                count = next((v for v in turn if v not in taken), turn[0])  # apart from the sizes too
                why = "an int that sizes nothing the analysis saw (apart from the others)"
                if p.name in halved:
                    count, why = draft_divisors.halved_value(halved[p.name], taken, INT_SCALARS)
            args.append(Arg(name=p.name, type=dtype, init="constant", value=count))
            guesses.append((f"args.{p.name}", f"{count}: {why}"))
        elif p.name in averages:
            value, why = averages[p.name]
            args.append(Arg(name=p.name, type=dtype, init="constant", value=value))
            guesses.append((f"args.{p.name}", why))
        else:
            plain = sum(1 for a in args if not a.is_array and a.value in MADE_UP and a.type.startswith("float"))
            weight = gaussian.index(p.name) if p.name in gaussian else -1
            scalar, why = float_value(
                p.name, an, sizing, plain, p.name in powers, weight, p.name in exp_scales, p.name in divided
            )
            args.append(Arg(name=p.name, type=dtype, init="constant", value=scalar))
            guesses.append((f"args.{p.name}", why))
    guesses[:0] = [(f"args.{p.name}", said) for p in kernel.params if (said := struct_by_value(p, unit))]
    draft_passes.over_args(fn, unit, floats, args, guesses)
    _ensure_output(args, guesses)
    spec = Spec(
        kernel=kernel.name,
        args=args,
        problem_size=list(sizing.problem_size),
        sizes=sizing.sizes,
        verify_sizes=sizing.verify_sizes,
        smem_size=sizing.smem,
        **_tuning(sizing, caps),
    )
    offsets_for_rows(spec, rows, guesses)
    draft_shared.fit_default_smem(spec, set(unit.defines), guesses)
    if sizing.multiples and spec.verify_sizes is None:  # check sizes in whole groups too
        tables = default_verify_sizes(spec)
        spec.verify_sizes = [{n: whole(v, sizing.multiples.get(n, 1)) for n, v in t.items()} for t in tables]
    fixed = set(unit.defines) & set(spec.sizes)
    if spec.verify_sizes is None and fixed:  # a #define cannot change: check sizes vary the others only
        tables = [{k: v for k, v in t.items() if k not in fixed} for t in default_verify_sizes(spec)]
        spec.verify_sizes = [t for t in tables if t]
    written = [u for u in uses.values() if u.written]
    buckets_per_items(spec, guesses, bool(written) and all(u.atomic for u in written))
    draft_relations.fit(spec, draft_relations.find(unit, kernel.name, list(an.axes.values())), guesses)
    ints = {p.name for p in fn.params if not p.pointer and p.type not in ("float", "double", "half", "__half")}
    draft_below.fit(spec, draft_below.find(fn, ints), guesses)
    draft_masked.fit(spec, draft_masked.find(fn, ints), guesses)
    draft_networks.fit(spec, fn, ints, guesses)
    draft_columns.fit(spec, fn, guesses)
    fit_windows(spec, an, guesses)
    guesses.extend(draft_periods.whole_periods(spec, fn) + draft_partials.fit(spec, fn))
    draft_dof.fit(spec, fn, guesses)
    draft_logs.fit(spec, fn, guesses)
    draft_radix.keep(spec, unit, kernel.name, an, guesses)
    draft_sound.fit(spec, an, guesses)
    draft_names.fit(spec, fn, uses, guesses)  # last: a name narrows only what no pass derived
    return Draft(spec, guesses)
