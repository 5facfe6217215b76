"""kt_tui.kernel.spec / expr / draft / inputs: launch specs, size expressions, drafts, input arrays."""

import dataclasses
import json
import math

import numpy as np
import pytest

from kt_tui.kernel.draft import draft_spec
from kt_tui.kernel.expr import ExprError, evaluate
from kt_tui.kernel.inputs import make_args
from kt_tui.kernel.source import find_kernels, pick_kernel, read_source
from kt_tui.kernel.spec import Arg, Spec, SpecError, check_spec, dump_spec, load_spec, parse_spec, version_hash

from ..conftest import EXAMPLES

SRC = "__global__ void k(float *out, const float *in, int n, float alpha) { }\n"
KERNEL = find_kernels(SRC)[0]

GOOD = """
kernel = "k"
problem_size = ["n"]
grid_div_x = ["block_size_x"]
restrictions = ["block_size_x >= 64"]

[sizes]
n = 1024

[tune_params]
block_size_x = [32, 64, 128, 256]
unroll = [1, 2]

[defaults]
block_size_x = 128

[[args]]
name = "out"
type = "float32"
size = "n"
init = "poison"
output = true
atol = 1e-3

[[args]]
name = "in"
type = "float32"
size = "n"
seed = 3

[[args]]
name = "n"
type = "int32"
value = "n"

[[args]]
name = "alpha"
type = "float32"
value = 2.0
"""


def _example(name):
    cu = EXAMPLES / f"{name}.cu"
    kernels = find_kernels(read_source(cu))
    spec = load_spec(EXAMPLES / f"{name}.cu.toml", pick_kernel(kernels, None, str(cu)))
    return spec


# -- the real examples -----------------------------------------------------------------------
@pytest.mark.parametrize(
    "name,kernel,space,baseline,psize",
    [
        ("vector_add", "vector_add", 6, {"block_size_x": 256}, [1 << 24]),
        ("matmul", "matmul", 24, {"block_size_x": 16, "block_size_y": 16}, [1024, 1024]),
        ("transpose", "transpose", 24, {"block_size_x": 16, "block_size_y": 16}, [4096, 4096]),
        ("reduction", "reduce_sum", 25, {"block_size_x": 256, "items_per_thread": 1}, [1 << 24]),
    ],
)
def test_example_specs_load(name, kernel, space, baseline, psize):
    spec = _example(name)
    assert spec.kernel == kernel
    assert spec.space_size() == space
    assert spec.baseline_params() == baseline
    assert spec.problem_size_values() == psize
    assert [a.name for a in spec.outputs()] == [spec.args[0].name]


def test_example_matmul_details():
    spec = _example("matmul")
    c, a, b, n = spec.args
    assert (c.init, c.output, c.tolerance()) == ("poison", True, (1e-3, 1e-4))
    assert (a.seed, b.seed) == (1, 2)
    assert n.is_array is False and n.value == "n"
    assert spec.restrictions == ["64 <= block_size_x * block_size_y <= 1024"]


@pytest.mark.parametrize("name", ["vector_add", "matmul", "transpose", "reduction"])
def test_dump_parse_round_trip_examples(name):
    spec = _example(name)
    again = parse_spec(
        dump_spec(spec),
        pick_kernel(find_kernels(read_source(EXAMPLES / f"{name}.cu")), None, name),
        base_dir=spec.base_dir,
    )
    assert again.to_dict() == spec.to_dict()


def test_dump_parse_round_trip_rich_spec():
    spec = parse_spec(GOOD, KERNEL)
    spec.compiler_options = ["-O3", "--use_fast_math"]
    spec.block_size_names = ["block_size_x"]
    spec.timeout_s = 12.5
    spec.iterations = 3
    again = parse_spec(dump_spec(spec), KERNEL)
    assert again.to_dict() == spec.to_dict()
    assert again.args[1].seed == 3 and again.args[0].atol == 1e-3


def test_default_tolerances():
    spec = parse_spec(GOOD, KERNEL)
    assert spec.args[0].tolerance() == (1e-3, 1e-4)  # atol given, rtol float32 default
    assert spec.args[1].tolerance() == (1e-5, 1e-4)
    assert Arg("i", "int32", size="n").tolerance() == (0.0, 0.0)


def test_load_spec_missing_file(tmp_path):
    with pytest.raises(SpecError, match="no such spec file") as e:
        load_spec(tmp_path / "none.toml")
    assert str(tmp_path / "none.toml") in str(e.value)


def test_parse_error_names_path():
    with pytest.raises(SpecError) as e:
        parse_spec(GOOD.replace('kernel = "k"', 'kernel = "other"'), KERNEL, "x/k.cu.toml")
    assert str(e.value).startswith("x/k.cu.toml: kernel:")


# -- broken specs ------------------------------------------------------------------------------
def _broken(old, new, count=1):
    assert old in GOOD
    return GOOD.replace(old, new, count)


BROKEN = [
    # (id, text, field (exact or prefix+"*"), words in the message)
    ("invalid toml", GOOD + "\nthis is = = not toml\n", "", "not valid TOML"),
    ("missing kernel", _broken('kernel = "k"\n', ""), "kernel", "missing"),
    ("missing args", GOOD.split("[[args]]")[0], "args", "missing"),
    ("size past 64 bits", _broken("n = 1024", "n = 99999999999999999999"), "sizes.n", "below 2**63"),
    (
        "kernel a number",
        _broken('kernel = "k"', "kernel = 5"),
        "kernel",
        "expected a string (the kernel's name), got 5",
    ),
    ("kernel a list", _broken('kernel = "k"', 'kernel = ["k"]'), "kernel", "expected a string"),
    ("kernel empty", _broken('kernel = "k"', 'kernel = ""'), "kernel", "missing"),
    ("unknown top key", _broken('kernel = "k"', 'kernel = "k"\nthreads = 4'), "threads", "unknown key"),
    ("unknown arg key", _broken("seed = 3", 'seed = 3\nsise = "n"'), "args[1].sise", "unknown key"),
    ("bad arg type", _broken('type = "float32"', 'type = "flaot32"'), "args[0] (out).type", "unknown type 'flaot32'"),
    (
        "arg type a number",
        _broken('type = "float32"', "type = 7"),
        "args[0] (out).type",
        'expected a type name such as "float32", got 7',
    ),
    ("bad init", _broken('init = "poison"', 'init = "garbage"'), "args[0] (out).init", "unknown init 'garbage'"),
    ("pointer given no size", _broken('size = "n"\nseed = 3', "value = 1.0\nseed = 3"), "args[1] (in)", "is a pointer"),
    ("scalar given a size", _broken('value = "n"', 'size = "n"'), "args[2] (n)", "is a scalar"),
    ("wrong arg count", GOOD.rsplit("[[args]]", 1)[0], "args", "takes 4 parameters"),
    ("unknown size name", _broken('size = "n"\nseed', 'size = "m"\nseed'), "args[1] (in).size", "unknown name 'm'"),
    ("problem_size missing", _broken('problem_size = ["n"]\n', ""), "problem_size", "missing"),
    (
        "problem_size unknown",
        _broken('problem_size = ["n"]', 'problem_size = ["w"]'),
        "problem_size[0]",
        "unknown name 'w'",
    ),
    ("tune value not a list", _broken("unroll = [1, 2]", "unroll = 2"), "tune_params.unroll", "non-empty list"),
    ("duplicate tune values", _broken("unroll = [1, 2]", "unroll = [1, 2, 1]"), "tune_params.unroll", "duplicate"),
    (
        "default not a tune value",
        _broken("[defaults]\nblock_size_x = 128", "[defaults]\nblock_size_x = 100"),
        "defaults.block_size_x",
        "100 is not one of its values",
    ),
    (
        "default not tunable",
        _broken("[defaults]\n", "[defaults]\ntile = 4\n"),
        "defaults.tile",
        "not a tunable parameter",
    ),
    (
        "restriction unknown name",
        _broken('"block_size_x >= 64"', '"block_size_z >= 64"'),
        "restrictions[0]",
        "unknown name 'block_size_z'",
    ),
    ("restriction syntax", _broken('"block_size_x >= 64"', '"block_size_x >="'), "restrictions[0]", "cannot parse"),
    (
        "grid_div_x unknown",
        _broken('grid_div_x = ["block_size_x"]', 'grid_div_x = ["bsx"]'),
        "grid_div_x[0]",
        "unknown name 'bsx'",
    ),
    ("no output", _broken("output = true\n", ""), "args", "output = true"),
    (
        "scalar output",
        _broken("value = 2.0", "value = 2.0\noutput = true"),
        "args[3] (alpha).output",
        "scalar cannot be an output",
    ),
    ("other kernel", _broken('kernel = "k"', 'kernel = "other"'), "kernel", "the spec is for 'other'"),
]


@pytest.mark.parametrize("text,field,words", [b[1:] for b in BROKEN], ids=[b[0] for b in BROKEN])
def test_broken_specs(text, field, words):
    with pytest.raises(SpecError) as e:
        parse_spec(text, KERNEL)
    assert e.value.field == field
    assert words in e.value.problem
    assert words in str(e.value)


def test_good_spec_parses():
    spec = parse_spec(GOOD, KERNEL)
    assert [a.name for a in spec.args] == ["out", "in", "n", "alpha"]
    assert spec.args[3].init == "constant"  # scalars default to constant
    assert spec.args[1].init == "random"
    assert spec.baseline_params() == {"block_size_x": 128, "unroll": 1}
    assert spec.space_size() == 8


def test_bad_function_call_in_size_is_spec_error():
    with pytest.raises(SpecError) as e:
        parse_spec(_broken('size = "n"\nseed', 'size = "ceil(n, 256)"\nseed'), KERNEL)
    assert e.value.field == "args[1] (in).size"


# -- version_hash --------------------------------------------------------------------------------
def test_version_hash():
    spec = parse_spec(GOOD, KERNEL)
    h = version_hash(SRC, spec)
    assert len(h) == 16
    assert version_hash(SRC, parse_spec(GOOD, KERNEL)) == h  # deterministic

    assert version_hash(SRC + "// changed\n", spec) != h

    for change in (
        dict(sizes={"n": 2048}),
        dict(problem_size=["n", 1]),
        dict(grid_div_x=["unroll"]),
        dict(compiler_options=["-O3"]),
        dict(restrictions=[]),
        dict(restrictions=["block_size_x >= 128"]),
    ):
        assert version_hash(SRC, dataclasses.replace(spec, **change)) != h, change
    args = [dataclasses.replace(a) for a in spec.args]
    args[1].seed = 99
    assert version_hash(SRC, dataclasses.replace(spec, args=args)) != h

    for change in (
        dict(tune_params={"block_size_x": [64]}),
        dict(defaults={}),
        dict(timeout_s=1.0),
        dict(iterations=2),
    ):
        assert version_hash(SRC, dataclasses.replace(spec, **change)) == h, change
    args = [dataclasses.replace(a) for a in spec.args]
    args[0].atol, args[0].rtol = 0.5, 0.5
    assert version_hash(SRC, dataclasses.replace(spec, args=args)) == h


# -- expr ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "expr,value",
    [
        ("1 + 2 * 3", 7),
        ("(n + 255) // 256", 4),
        ("n * m", 2048),
        ("n % 7", 2),
        ("2 ** 10", 1024),
        ("-n + 1", -1023),
        ("n / 4", 256.0),
        ("min(n, m, 5)", 2),
        ("max(n, m)", 1024),
        ("ceil(n / 1000)", 2),
        ("floor(7 / 2)", 3),
        (42, 42),
        (2.5, 2.5),
    ],
)
def test_evaluate(expr, value):
    assert evaluate(expr, {"n": 1024, "m": 2}) == value


@pytest.mark.parametrize(
    "expr",
    [
        "__import__('os')",
        "n.real",
        "open('x')",
        "[n]",
        "'abc'",
        "lambda: 1",
        "n < 3",
        "x + 1",
        "1 / 0",
        "n // 0",
        "n % 0",
        "",
        "   ",
        "1 +",
        True,
        None,
    ],
)
def test_evaluate_rejects(expr):
    with pytest.raises(ExprError):
        evaluate(expr, {"n": 4})


def test_evaluate_unknown_name_message():
    with pytest.raises(ExprError, match="unknown name 'k'.*known: m, n"):
        evaluate("k * 2", {"n": 1, "m": 2})


def test_evaluate_division_by_zero_message():
    with pytest.raises(ExprError, match="division by zero"):
        evaluate("n / (n - n)", {"n": 3})


@pytest.mark.parametrize("expr", ["max(n)", "min()", "ceil(n, 2)"])
def test_evaluate_bad_call_is_expr_error(expr):
    with pytest.raises(ExprError):
        evaluate(expr, {"n": 3})


# -- draft --------------------------------------------------------------------------------------
def test_draft_spec():
    spec = draft_spec(KERNEL)
    out, inp, n, alpha = spec.args
    assert spec.kernel == "k"
    assert (out.name, out.is_array, out.output, out.type) == ("out", True, True, "float32")
    assert (inp.name, inp.is_array, inp.output, inp.init) == ("in", True, False, "random")
    assert (n.name, n.is_array, n.type, n.value) == ("n", False, "int32", "n")
    assert (alpha.name, alpha.is_array, alpha.init, alpha.type) == ("alpha", False, "constant", "float32")
    assert isinstance(alpha.value, float)
    assert out.seed != inp.seed
    assert [a.name for a in spec.outputs()] == ["out"]
    check_spec(spec, KERNEL)
    assert parse_spec(dump_spec(spec), KERNEL).to_dict() == spec.to_dict()


def test_draft_spec_all_const_pointers_still_has_output():
    (k,) = find_kernels("__global__ void k(const float *a, const int *b, int n) {}")
    spec = draft_spec(k)
    assert [a.name for a in spec.outputs()] == ["a"]
    assert spec.args[1].type == "int32"
    check_spec(spec, k)


# -- inputs -------------------------------------------------------------------------------------
def _spec(args, n=64):
    return Spec(kernel="k", args=args, problem_size=["n"], sizes={"n": n})


def test_make_args_deterministic_per_seed():
    spec = _spec(
        [
            Arg("f", "float32", size="n", seed=7),
            Arg("i", "int32", size="n", seed=7),
            Arg("u", "uint8", size="n", seed=7),
        ]
    )
    a1, a2 = make_args(spec), make_args(spec)
    for x, y in zip(a1, a2):
        assert x.dtype == y.dtype
        np.testing.assert_array_equal(x, y)
    assert a1[0].dtype == np.float32 and a1[1].dtype == np.int32 and a1[2].dtype == np.uint8
    assert a1[0].shape == (64,)
    assert np.unique(a1[0]).size > 1


def test_make_args_different_seeds_differ():
    spec = _spec(
        [
            Arg("a", "float32", size="n", seed=1),
            Arg("b", "float32", size="n", seed=2),
            Arg("c", "int32", size="n", seed=1),
            Arg("d", "int32", size="n", seed=2),
        ]
    )
    a, b, c, d = make_args(spec)
    assert not np.array_equal(a, b)
    assert not np.array_equal(c, d)


def test_make_args_init_kinds():
    spec = _spec(
        [
            Arg("z", "float64", size="n", init="zeros"),
            Arg("o", "int16", size="n", init="ones"),
            Arg("r", "float32", size="n", init="range"),
            Arg("c", "float32", size="n", init="constant", value=2.5),
            Arg("pf", "float32", size="n", init="poison"),
            Arg("pi", "int32", size="n", init="poison"),
            Arg("pu", "uint16", size="n", init="poison"),
        ],
        n=8,
    )
    z, o, r, c, pf, pi, pu = make_args(spec)
    assert z.dtype == np.float64 and not z.any()
    assert o.dtype == np.int16 and (o == 1).all()
    assert r.dtype == np.float32 and r.tolist() == list(range(8))
    assert (c == np.float32(2.5)).all()
    assert pf.dtype == np.float32 and np.isnan(pf).all()
    assert pi.dtype == np.int32 and (pi == np.iinfo(np.int32).max).all()
    assert pu.dtype == np.uint16 and (pu == np.iinfo(np.uint16).max).all()
    assert all(x.shape == (8,) for x in (z, o, r, c, pf, pi, pu))


def test_make_args_scalars_and_size_expressions():
    spec = _spec(
        [
            Arg("half", "float32", size="n // 2", init="ones"),
            Arg("n", "int32", init="constant", value="n"),
            Arg("alpha", "float32", init="constant", value=0.5),
            Arg("big", "uint64", init="constant", value="n * 4"),
        ],
        n=10,
    )
    half, n, alpha, big = make_args(spec)
    assert half.shape == (5,)
    assert isinstance(n, np.int32) and n == 10
    assert isinstance(alpha, np.float32) and alpha == np.float32(0.5)
    assert isinstance(big, np.uint64) and big == 40


def test_make_args_from_example():
    spec = _example("vector_add")
    spec.sizes = {"n": 1000}
    c, a, b, n = make_args(spec)
    assert np.isnan(c).all() and c.shape == (1000,)
    assert not np.array_equal(a, b)
    assert isinstance(n, np.int32) and n == 1000
    assert math.isfinite(float(a.sum()))


def test_the_baseline_is_kernel_tuners_first_valid_configuration_and_bad_defaults_are_named():
    # kernel_tuner's matmul example: no defaults, and each parameter's first value breaks the restriction
    text = """kernel = "k"
problem_size = ["n"]
restrictions = ["block_size_x == block_size_y * tile_size_y"]
[sizes]
n = 64
[tune_params]
block_size_x = [16, 32]
block_size_y = [1, 2, 4]
tile_size_y = [1, 2, 8]
[[args]]
name = "out"
type = "float32"
size = "n"
output = true
"""
    spec = parse_spec(text)
    assert spec.baseline_params() == {"block_size_x": 16, "block_size_y": 2, "tile_size_y": 8}
    with pytest.raises(SpecError) as e:
        parse_spec(text + "[defaults]\nblock_size_x = 32\nblock_size_y = 1\ntile_size_y = 1\n")
    assert e.value.field == "defaults"
    with pytest.raises(SpecError) as e:
        parse_spec(text.replace("block_size_x == block_size_y * tile_size_y", "block_size_x > 1000"))
    assert e.value.field == "restrictions"


@pytest.mark.parametrize(
    "option",
    [
        "-ccbin=/tmp/evil",
        "-Xcompiler=-fplugin=/tmp/x.so",
        "-include",
        "-o",
        "--options-file=/tmp/opts",
        "--dependency-output=/tmp/d",
        "-I/a b",
    ],
)
def test_compiler_options_that_run_read_or_write_files_are_refused(option):
    text = (
        f'kernel = "k"\nproblem_size = ["n"]\ncompiler_options = ["-O3", {json.dumps(option)}]\n[sizes]\nn = 64\n'
        '[[args]]\nname = "out"\ntype = "float32"\nsize = "n"\noutput = true\n'
    )
    with pytest.raises(SpecError) as e:
        parse_spec(text)
    assert e.value.field == "compiler_options[1]" and "not allowed" in e.value.problem
    spec = parse_spec(text.replace(", " + json.dumps(option), ', "-Iinclude", "-maxrregcount=32", "-std=c++17"'))
    assert spec.compiler_options == ["-O3", "-Iinclude", "-maxrregcount=32", "-std=c++17"]
