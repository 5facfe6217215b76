"""The launch spec keys that say what kernel_tuner says: file inputs, random kinds, copies, defines,
cmem_args, reference, verification modes, template kernels, a problem size from a tuned parameter."""

import numpy as np
import pytest

from kt_tui.kernel.inputs import make_args
from kt_tui.kernel.source import find_kernels
from kt_tui.kernel.spec import SpecError, dump_spec, load_spec, parse_spec
from kt_tui.kernel.spec_keys import ROW_LENGTHS

KERNEL = find_kernels("__global__ void k(float *out, const float *in, int n) {}")[0]
BASE = """
kernel = "k"
problem_size = ["n"]
{top}
[sizes]
n = 64
[tune_params]
block_size_x = [32, 64]
[[args]]
name = "out"
type = "float32"
size = "n"
output = true
{out}
[[args]]
name = "in"
type = "float32"
size = "n"
{inp}
[[args]]
name = "n"
type = "int32"
value = "n"
"""


def _parse(top="", out="", inp="", tmp_path=None):
    text = BASE.format(top=top, out=out, inp=inp)
    if tmp_path is None:
        return parse_spec(text, KERNEL)
    (tmp_path / "k.cu.toml").write_text(text)
    return load_spec(tmp_path / "k.cu.toml", KERNEL)


def _error(**kw) -> str:
    with pytest.raises(SpecError) as e:
        _parse(**kw)
    return str(e.value)


def test_inputs_from_npz_and_npy_files(tmp_path):
    data = np.arange(64, dtype=np.float32)
    np.savez(tmp_path / "k.inputs.npz", **{"in": data})
    np.save(tmp_path / "in.npy", data * 2)
    spec = _parse(inp='init = "file"\nfile = "k.inputs.npz"', tmp_path=tmp_path)
    assert np.array_equal(make_args(spec)[1], data)
    spec = _parse(inp='init = "file"\nfile = "in.npy"', tmp_path=tmp_path)
    assert np.array_equal(make_args(spec)[1], data * 2)
    assert parse_spec(dump_spec(spec), KERNEL, base_dir=tmp_path).to_dict() == spec.to_dict()


@pytest.mark.parametrize(
    "inp,message",
    [
        ('init = "file"', 'args[1] (in).file: init = "file" needs file'),
        ('init = "file"\nfile = "x.csv"', "args[1] (in).file: expected a .npy or .npz file name"),
        ('init = "file"\nfile = "missing.npz"', "args[1] (in).file: no such file"),
        ('init = "copy"', 'args[1] (in).copy_of: init = "copy" needs copy_of'),
        ('init = "copy"\ncopy_of = "n"', "args[1] (in).copy_of: 'n' is not another array argument"),
        ('low = "m"', "args[1] (in).low: unknown name 'm'"),
        ("low = 5\nhigh = 2", "args[1] (in).high: must be above low (5)"),
        ("high = true", "args[1] (in).high: expected a number or a size expression"),
    ],
)
def test_arg_key_messages(tmp_path, inp, message):
    with pytest.raises(SpecError) as e:
        _parse(inp=inp, tmp_path=tmp_path)
    assert message in str(e.value)


def test_random_kinds_bounds_and_copy():
    spec = _parse(out='init = "copy"\ncopy_of = "in"', inp='init = "uniform"\nlow = 2\nhigh = 3')
    out, inp, _ = make_args(spec)
    assert inp.min() >= 2 and inp.max() < 3 and np.array_equal(out, inp)
    spec = _parse(inp='init = "positive"')
    assert make_args(spec)[1].min() > 0
    text = BASE.format(top="", out="", inp='low = 0\nhigh = "n"')
    spec = parse_spec(text.replace('name = "in"\ntype = "float32"', 'name = "in"\ntype = "int32"'), KERNEL)
    values = make_args(spec)[1]
    assert values.dtype == np.int32 and values.min() >= 0 and values.max() < 64
    spec = _parse(inp='init = "normal"\nseed = 3')
    assert np.array_equal(make_args(spec)[1], make_args(spec)[1])


def test_defines_cmem_reference(tmp_path):
    np.savez(tmp_path / "k.cmem.npz", d_filter=np.ones(9, np.float32))
    np.savez(tmp_path / "k.reference.npz", out=np.zeros(64, np.float32))
    spec = _parse(
        top='cmem_args = "k.cmem.npz"\nreference = "k.reference.npz"\n[defines]\nWIDTH = "n * 2"\nPI = 3',
        tmp_path=tmp_path,
    )
    assert spec.define_values() == {"WIDTH": 128, "PI": 3}
    assert parse_spec(dump_spec(spec), KERNEL, base_dir=tmp_path).to_dict() == spec.to_dict()
    assert "cmem_args: no such file" in _error(top='cmem_args = "nope.npz"', tmp_path=tmp_path)
    assert "reference: expected a .npz file name" in _error(top='reference = "x.txt"')
    assert "defines.W: 'm': unknown name 'm': not a name in [sizes]" in _error(top='[defines]\nW = "m"')
    assert "defines.W: expected a number or a size expression" in _error(top="[defines]\nW = true")


def test_verify_modes(tmp_path):
    assert _parse().verify == "elementwise"
    spec = _parse(top='verify = "none"\nverify_reason = "the output is random"')
    assert (spec.verify, spec.verify_reason) == ("none", "the output is random")
    assert 'verify_reason: verify = "none" needs a reason' in _error(top='verify = "none"')
    assert "verify: expected one of elementwise, none" in _error(top='verify = "nearly"')
    assert "verify: imports checks.py, which is not next to the spec" in _error(
        top='verify = "checks:close"', tmp_path=tmp_path
    )
    (tmp_path / "checks.py").write_text("def close(a, b, atol=None):\n    return True\n")
    assert _parse(top='verify = "checks:close"', tmp_path=tmp_path).verify == "checks:close"


def test_template_kernel_and_problem_size_from_a_tuned_parameter():
    spec = parse_spec(
        BASE.format(top="", out="", inp="")
        .replace('kernel = "k"', 'kernel = "k<float>"')
        .replace('problem_size = ["n"]', 'problem_size = ["block_size_x * 2"]'),
        KERNEL,
    )
    assert spec.kernel_base_name() == "k" and spec.tuned_problem_size()
    assert spec.problem_size_values() == [64] and spec.problem_size_values(params={"block_size_x": 64}) == [128]
    with pytest.raises(SpecError) as e:
        parse_spec(BASE.format(top="", out="", inp="").replace('kernel = "k"', 'kernel = "j<float>"'), KERNEL)
    assert "kernel: the spec is for 'j<float>', the kernel is 'k'" in str(e.value)


def test_vector_types_are_arrays_of_their_base_type():
    text = BASE.format(top="", out="", inp="").replace('name = "in"\ntype = "float32"', 'name = "in"\ntype = "float4"')
    spec = parse_spec(text, KERNEL)
    inp = spec.args[1]
    assert (inp.type, inp.dtype, inp.lanes, inp.tolerance()) == ("float4", "float32", 4, (1e-5, 1e-4))
    assert make_args(spec)[1].shape == (256,) and make_args(spec)[1].dtype == np.float32
    assert parse_spec(dump_spec(spec), KERNEL).to_dict() == spec.to_dict()
    bad = BASE.format(top="", out="", inp="").replace('name = "n"\ntype = "int32"', 'name = "n"\ntype = "float2"')
    with pytest.raises(SpecError) as e:
        parse_spec(bad, KERNEL)
    # a float2 scalar is a vector passed by value: its value is its lanes (tests/kernel/test_vector_scalars.py)
    assert "args[2] (n).value: a float2 scalar needs 2 lane values (x, y)" in str(e.value)
    (k,) = find_kernels("__global__ void v(float2 *out, const float2 *in, int n) { if (n) out[0] = in[0]; }")
    from kt_tui.kernel.draft import draft_spec

    assert [a.type for a in draft_spec(k).args][:2] == ["float2", "float2"]


def test_file_inputs_are_checked_at_their_one_size(tmp_path):
    np.savez(tmp_path / "k.inputs.npz", **{"in": np.ones(64, np.float32)})
    spec = _parse(inp='init = "file"\nfile = "k.inputs.npz"', tmp_path=tmp_path)
    assert spec.verify_sizes is None and spec.extra_sizes() == []


def test_inputs_and_reference_from_a_python_function(tmp_path, monkeypatch):
    (tmp_path / "gen.py").write_text(
        "import numpy as np\n"
        "def ramp(sizes):\n    return np.arange(sizes['n']) * 2\n"
        "def expected(inputs, sizes):\n    return {'out': inputs['in'] + 1}\n"
    )
    spec = _parse(top='reference = "gen:expected"', inp='init = "function"\nfunction = "gen:ramp"', tmp_path=tmp_path)
    from kt_tui.kernel import inputs

    monkeypatch.setattr(inputs, "_USER_CODE", [True])  # as in the GPU worker (allow_user_code)
    args = make_args(spec)
    assert args[1].dtype == np.float32 and np.array_equal(args[1], np.arange(64) * 2)
    assert np.array_equal(inputs.reference_outputs(spec, args)["out"], np.arange(64) * 2 + 1)
    assert parse_spec(dump_spec(spec), KERNEL, base_dir=tmp_path).to_dict() == spec.to_dict()
    assert 'args[1] (in).function: init = "function" needs function' in _error(inp='init = "function"')
    assert "args[1] (in).function: imports nope.py, which is not next to the spec" in _error(
        inp='init = "function"\nfunction = "nope:ramp"', tmp_path=tmp_path
    )
    assert "reference: imports nope.py" in _error(top='reference = "nope:f"', tmp_path=tmp_path)
    assert 'reference: expected a .npz file name or "module:function"' in _error(top='reference = "x y"')


def test_spec_validation_never_imports_the_users_python(tmp_path):
    (tmp_path / "gen.py").write_text("raise SystemExit('imported!')\ndef ramp(sizes):\n    return []\n")
    spec = _parse(top='verify = "gen:ramp"', inp='init = "function"\nfunction = "gen:ramp"', tmp_path=tmp_path)
    assert spec.args[1].function == "gen:ramp"


def test_smem_size():
    spec = _parse(top='smem_size = "block_size_x * 4 + n"')
    assert spec.smem_function()({"block_size_x": 32}) == 192
    assert "smem_size: unknown name 'm'" in _error(top='smem_size = "m"')
    assert "smem_size: expected bytes" in _error(top="smem_size = true")
    assert parse_spec(dump_spec(spec), KERNEL).to_dict() == spec.to_dict()


def test_version_id_follows_the_data_files(tmp_path):
    from kt_tui.kernel.spec import version_hash

    np.savez(tmp_path / "k.inputs.npz", **{"in": np.ones(64, np.float32)})
    spec = _parse(inp='init = "file"\nfile = "k.inputs.npz"', tmp_path=tmp_path)
    before = version_hash("src", spec)
    np.savez(tmp_path / "k.inputs.npz", **{"in": np.zeros(64, np.float32)})
    assert version_hash("src", spec) != before
    plain = _parse()
    assert version_hash("src", plain) == version_hash("src", _parse())


# -- init = "offsets": row offsets with rows of varied lengths (issue 35 item 2) ------------------------
OFFSETS = BASE.replace('name = "in"\ntype = "float32"', 'name = "in"\ntype = "int32"')


def test_offsets_are_non_decreasing_from_low_below_high_with_rows_of_every_length():
    spec = parse_spec(OFFSETS.format(top="", out="", inp='init = "offsets"\nhigh = "n * 40"'), KERNEL)
    ptr = make_args(spec)[1]
    steps = np.diff(ptr)
    assert ptr.dtype == np.int32 and ptr[0] == 0 and (steps >= 0).all() and ptr[-1] < 64 * 40
    for start in range(0, 56, 8):  # every 8 rows hold one row of each length, in an order the seed picks
        assert sorted(steps[start : start + 8]) == sorted(ROW_LENGTHS)
    assert len({tuple(steps[s : s + 8]) for s in range(0, 56, 8)}) > 1
    assert np.array_equal(make_args(spec)[1], ptr)  # deterministic
    other = parse_spec(OFFSETS.format(top="", out="", inp='init = "offsets"\nhigh = "n * 40"\nseed = 9'), KERNEL)
    assert not np.array_equal(make_args(other)[1], ptr) and sorted(np.diff(make_args(other)[1])[:8]) == sorted(
        ROW_LENGTHS
    )


def test_offsets_stop_at_high_and_start_at_low():
    spec = parse_spec(OFFSETS.format(top="", out="", inp='init = "offsets"\nlow = 5\nhigh = 300'), KERNEL)
    ptr = make_args(spec)[1]
    assert ptr[0] == 5 and ptr[-1] == 299 and (np.diff(ptr) >= 0).all()
    assert sorted(np.diff(ptr)[:8]) == sorted(ROW_LENGTHS)  # the first rows fit: 238 elements
    assert (np.diff(ptr)[16:] == 0).all()  # the span spent: the rows after are empty


@pytest.mark.parametrize(
    "inp,message",
    [
        ('init = "offsets"', 'args[1] (in).high: init = "offsets" needs high'),
        ('init = "offsets"\nlow = 10\nhigh = 10', "args[1] (in).high: must be above low (10)"),
        ('init = "offsets"\nhigh = "m"', "args[1] (in).high: unknown name 'm'"),
        ('init = "offsets"\nhigh = 3000000000', "args[1] (in).high: 3000000000 does not fit int32"),
    ],
)
def test_offsets_keys_are_checked(inp, message):
    with pytest.raises(SpecError) as e:
        parse_spec(OFFSETS.format(top="", out="", inp=inp), KERNEL)
    assert message in str(e.value)
    with pytest.raises(SpecError) as e:
        _parse(inp='init = "offsets"\nhigh = 100')  # a float array
    assert 'args[1] (in).type: init = "offsets" makes row offsets, integers: got float32' in str(e.value)
