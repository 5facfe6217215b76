"""Review of session 19's stronger inputs (kernel/strengthen_code.py, init = "rounded"): a spec that
asks to round integers is told so; no case makes a correct kernel differ from the original (strictly
increasing breakpoints tied, positions rounded out of the cells the user's Python binned them in, a
clamp's int bound wrapped at its raised size); a large source is read for its kernels once; an input
the spec rounds is named where the user's Python's are (the survivors' line, spec --check)."""

import numpy as np
import pytest

from kt_tui.kernel.spec import SpecError, parse_spec

from .test_spec_errors_exit_2 import SPEC as VECTOR_ADD
from .test_spec_errors_exit_2 import _exit_2

ROUNDED_A = VECTOR_ADD.replace('init = "random"\nseed = 1', 'init = "rounded"\nfunction = "gen:made"')


def test_rounded_on_an_integer_array_is_a_one_line_exit_2(capsys, tmp_path):
    """Rounding integers does nothing: the spec that asks for it is told, as "spikes" or "lifted" on
    the wrong type are, through `spec --check` and `run`."""
    assert ROUNDED_A != VECTOR_ADD
    (tmp_path / "gen.py").write_text("import numpy as np\n\ndef made(sizes):\n    return np.arange(sizes['n'])\n")
    as_int = ROUNDED_A.replace('name = "a"\ntype = "float32"', 'name = "a"\ntype = "int32"')
    assert as_int != ROUNDED_A
    _exit_2(capsys, tmp_path, as_int, 'init = "rounded" rounds the floats')


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64", "float4"])
def test_rounded_on_floats_is_accepted(dtype):
    spec = parse_spec(ROUNDED_A.replace('name = "a"\ntype = "float32"', f'name = "a"\ntype = "{dtype}"'))
    assert [a.init for a in spec.args if a.name == "a"] == ["rounded"]


@pytest.mark.parametrize("dtype", ["int32", "uint8", "int64"])
def test_rounded_on_integers_is_refused(dtype):
    with pytest.raises(SpecError, match=r'args\[1\] \(a\)\.type: init = "rounded"'):
        parse_spec(ROUNDED_A.replace('name = "a"\ntype = "float32"', f'name = "a"\ntype = "{dtype}"'))


INTERP_SPEC = """kernel = "interp"
problem_size = ["n"]
[sizes]
n = 4000
m = 200
[tune_params]
block_size_x = [128]
[[args]]
name = "xp"
type = "float32"
size = "m"
init = "function"
function = "g:breakpoints"
[[args]]
name = "fp"
type = "float32"
size = "m"
[[args]]
name = "m"
type = "int32"
value = "m"
[[args]]
name = "x"
type = "float32"
size = "n"
low = 0
high = 50
[[args]]
name = "n"
type = "int32"
value = "n"
[[args]]
name = "y"
type = "float32"
size = "n"
output = true
"""
INTERP = """__global__ void interp(const float *xp, const float *fp, int m, const float *x, int n, float *y)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float q = x[i];
    if (q <= xp[0]) { y[i] = fp[0]; return; }
    if (q >= xp[m - 1]) { y[i] = fp[m - 1]; return; }
    int j = 0;
    while (xp[j + 1] < q) ++j;
    y[i] = fp[j] + (q - xp[j]) / (xp[j + 1] - xp[j]) * (fp[j + 1] - fp[j]);
}
"""


def _interp(xp, fp, x, search):
    """INTERP in numpy (`search` "scan": its loop, xp[j] < q <= xp[j + 1]), and a correct rewrite of it
    for strictly increasing breakpoints ("bisect": the last j with xp[j] <= q, a binary search)."""
    m = xp.size
    if search == "scan":
        j = np.searchsorted(xp, x, side="left") - 1
    else:
        j = np.searchsorted(xp, x, side="right") - 1
    j = np.clip(j, 0, m - 2)
    with np.errstate(all="ignore"):
        inner = fp[j] + (x - xp[j]) / (xp[j + 1] - xp[j]) * (fp[j + 1] - fp[j])
    return np.where(x <= xp[0], fp[0], np.where(x >= xp[-1], fp[-1], inner))


def test_strictly_increasing_breakpoints_stay_strict_in_the_tie_case(monkeypatch):
    """The user's Python makes strictly increasing breakpoints; rounded to whole numbers they tied
    (about 4 per whole number), and at a query on a tie the original (the interval ending there) and a
    correct rewrite (the one starting there) gave different values: a false "wrong". The tie case
    keeps them strictly increasing (the queries are still whole numbers, and meet them)."""
    from kt_tui.kernel import inputs
    from kt_tui.kernel.strengthen import candidates, case_spec

    def breakpoints(sizes):
        return np.sort(np.random.default_rng(5).uniform(0, 50, sizes["m"]))

    monkeypatch.setattr(inputs, "user_function", lambda spec, ref: breakpoints)
    spec = parse_spec(INTERP_SPEC)
    cases = [c for c in candidates(spec, INTERP) if "rounded to whole numbers" in c["label"]]
    assert len(cases) == 1, [c["label"] for c in candidates(spec, INTERP)]
    for s in (spec, case_spec(spec, cases[0])):
        xp, fp, _, x, _, _ = inputs.make_args(s, s.sizes)
        assert np.allclose(_interp(xp, fp, x, "scan"), _interp(xp, fp, x, "bisect"), atol=1e-5, equal_nan=True)
        assert np.all(np.diff(xp) > 0)
    x = inputs.make_args(case_spec(spec, cases[0]), spec.sizes)[3]
    assert set(np.unique(x)) <= {-2, -1, 0, 1, 2}  # the case's ties with the constants stay


def test_the_wide_value_rule_finds_the_sources_kernels_once_and_not_past_its_bound(monkeypatch):
    """Finding a source's kernels takes time in its length (seconds for a few MB): the rule read them
    twice where it found a clamp (its parameters, then again for their reach), and before it looked
    at the kernel's body, which past 64 KiB it then did not read."""
    from kt_tui.kernel import strengthen_shapes
    from kt_tui.kernel.strengthen_code import wide_value_cases

    from .test_strengthen_s19 import KERNEL, SPEC

    spec = parse_spec(SPEC.replace('init = "INIT"', 'init = "function"\nfunction = "g:edges"'))
    calls = []
    found = strengthen_shapes.find_kernels
    monkeypatch.setattr(strengthen_shapes, "find_kernels", lambda src: calls.append(1) or found(src))
    assert [c["sizes"]["m"] for c in wide_value_cases(spec, KERNEL)] == [131073]
    assert len(calls) == 1
    calls.clear()
    long_body = KERNEL.replace("out[i] = s;", "out[i] = s;\n" + "    s = s + 1.0f;\n" * 6000)
    assert wide_value_cases(spec, long_body) == [] and not calls


PAIRS = """__global__ void k(const int *edges, const float *x, int n, int m, float *out)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int p = min(edges[i], m * (m - 1) / 2 - 1);
    const int a = (int)((1.0f + sqrtf(1.0f + 8.0f * p)) / 2.0f);
    out[i] = x[min(a, m - 1)] - x[p - a * (a - 1) / 2];
}
"""


def test_a_clamp_bound_growing_faster_than_its_size_is_raised_only_past_2_17():
    """`min(edges[i], m * (m - 1) / 2 - 1)` (a pair's index, clamped to the pairs of m points): m was
    raised to 131073, where the kernel's int bound is past 2**33 and wraps (to 65535: a clamp a rewrite
    in 64 bits does not make, a false "wrong", and one within 16 bits); it is raised to the least m
    whose bound passes 2**17."""
    from kt_tui.kernel.expr import evaluate
    from kt_tui.kernel.strengthen_code import wide_value_cases

    from .test_strengthen_s19 import KERNEL, SPEC

    spec = parse_spec(SPEC.replace('init = "INIT"', 'init = "function"\nfunction = "g:edges"'))
    source = PAIRS
    cases = wide_value_cases(spec, source)
    assert len(cases) == 1, cases
    m = cases[0]["sizes"]["m"]
    assert 1 << 17 < evaluate("m * (m - 1) // 2 - 1", {"m": m}) < 1 << 31
    assert evaluate("m * (m - 1) // 2 - 1", {"m": m - 1}) <= 1 << 17
    linear = wide_value_cases(spec, KERNEL)  # a bound linear in its size keeps the value it had
    assert [c["sizes"]["m"] for c in linear] == [131073]


def test_an_input_the_spec_rounds_is_named_as_kept_as_given():
    """init = "rounded" in the spec is the user's Python's values too: no stronger case draws it
    again, and the survivors' line says so, as it does for init = "function"."""
    from kt_tui.kernel.strengthen import candidates, kept_as_given

    spec = parse_spec(ROUNDED_A)
    cases = candidates(spec, "")
    assert not any("a" in (c.get("args") or {}) for c in cases)
    assert "`a` (gen:made)" in kept_as_given(spec, cases)


def _gen19():
    import importlib.util
    from pathlib import Path

    where = Path(__file__).resolve().parents[1] / "corpus" / "specs" / "gen19.py"
    loader = importlib.util.spec_from_file_location("corpus_gen19_rev19", where)
    assert loader is not None and loader.loader is not None
    module = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(module)
    return module


def _density(pos, ranges, sizes, h, cells=True):
    """sph_density_cells_int2.cu in numpy (`cells`: its 27 cells around a particle's), or a correct
    rewrite where positions are binned as the cell ranges say: every particle within h, found by
    brute force."""
    p = pos.reshape(-1, 4).astype(np.float32)
    gx, gy, gz = sizes["gx"], sizes["gy"], sizes["gz"]
    r = ranges.reshape(-1, 2)
    h2 = np.float32(h) * np.float32(h)
    out = np.zeros(len(p), np.float32)
    for i, (x, y, z, _) in enumerate(p):
        if cells:
            c = [min(max(int(np.floor(v / np.float32(h))), 0), g - 1) for v, g in zip((x, y, z), (gx, gy, gz))]
            js = [
                np.arange(*r[(cz * gy + cy) * gx + cx])
                for cz in range(max(c[2] - 1, 0), min(c[2] + 1, gz - 1) + 1)
                for cy in range(max(c[1] - 1, 0), min(c[1] + 1, gy - 1) + 1)
                for cx in range(max(c[0] - 1, 0), min(c[0] + 1, gx - 1) + 1)
            ]
            j = np.concatenate(js) if js else np.arange(0)
        else:
            j = np.arange(len(p))
        d = p[j, :3] - p[i, :3]
        r2 = (d * d).sum(1)
        near = r2 < h2
        out[i] = (p[j, 3][near] * (h2 - r2[near]) ** 3).sum(dtype=np.float64)
    return out


def test_positions_are_not_rounded_away_from_the_cells_the_users_python_binned_them_in(monkeypatch):
    """sph_density: the user's Python makes the positions and, from them, each cell's range of
    particles. The positions rounded to whole numbers (the cell ranges as made) leave their cells: the
    original then misses neighbours a correct kernel finds (brute force over all particles here), a
    false "wrong". A float array beside an integer input the user's Python makes is not rounded."""
    from pathlib import Path

    from kt_tui.kernel import inputs
    from kt_tui.kernel.spec import load_spec
    from kt_tui.kernel.strengthen import candidates, case_spec

    gen19 = _gen19()
    monkeypatch.setattr(inputs, "user_function", lambda spec, ref: getattr(gen19, ref.partition(":")[2]))
    corpus = Path(__file__).resolve().parents[1] / "corpus"
    spec = load_spec(corpus / "specs" / "sph_density_cells_int2.cu.toml")
    at = {"npart": 3001, "gx": 40, "gy": 5, "gz": 3}  # x over 0 .. 2.5: its positions span whole numbers
    cases = candidates(spec, (corpus / "sph_density_cells_int2.cu").read_text())
    for s in [spec] + [case_spec(spec, c) for c in cases if "pos" in c["args"]]:  # each case that changes them
        s = case_spec(s, {"sizes": at})
        pos, ranges = inputs.make_args(s, s.sizes)[:2]
        h = next(a.value for a in s.args if a.name == "h")
        assert np.allclose(_density(pos, ranges, s.sizes, h), _density(pos, ranges, s.sizes, h, cells=False), rtol=1e-4)


def test_spec_check_without_a_gpu_makes_no_rounded_input_in_this_process(capsys, tmp_path):
    """Without a GPU, `spec --check` tests a reference file's outputs against the inputs it can make
    here; an input of the user's Python, rounded or not, is not one of them (it runs only in the GPU
    worker). Rounded, it was made, and the valid spec ended in exit 2."""
    import shutil

    from kt_tui import cli

    from ..conftest import EXAMPLES

    shutil.copy(EXAMPLES / "vector_add.cu", tmp_path / "vector_add.cu")
    (tmp_path / "gen.py").write_text(
        "import numpy as np\n\ndef made(sizes):\n    return np.linspace(-3, 3, sizes['n'])\n"
    )
    np.savez(tmp_path / "ref.npz", c=np.zeros(1024, np.float32))
    text = ROUNDED_A.replace("n = 16777216", "n = 1024").replace("[sizes]", 'reference = "ref.npz"\n\n[sizes]')
    (tmp_path / "vector_add.cu.toml").write_text(text)
    assert cli.main(["spec", str(tmp_path / "vector_add.cu"), "--check", "--backend", "sim"]) == 0, capsys.readouterr()
