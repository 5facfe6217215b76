"""A local count only compared with a block index, launched exactly (kernel/equivalent_count.py): edits that
make it no smaller at every size are equivalent within the spec's launch; others are counted (issue 35)."""

from __future__ import annotations

from pathlib import Path

from kt_tui.kernel.mutant import mutants
from kt_tui.kernel.spec import load_spec

FRAMES = """
__global__ void frame_sum(const float *x, int n, int len, int hop, float *out)
{
    const int f = blockIdx.x;
    const int frames = (n - len) / hop + 1;
    if (f >= frames)
        return;
    float s = 0.0f;
    for (int i = threadIdx.x; i < len; i += blockDim.x)
        s += x[f * hop + i];
    atomicAdd(&out[f], s);
}
"""

SPEC = """
kernel = "frame_sum"
problem_size = ["(n - len) // hop + 1"]
grid_div_x = {div}
verify_sizes = [{{n = 1001, len = 50, hop = 13}}]

[sizes]
n = 96000
len = 400
hop = 160

[tune_params]
block_size_x = [32, 64]

[[args]]
name = "x"
type = "float32"
size = "n"

[[args]]
name = "n"
type = "int32"
value = "n"

[[args]]
name = "len"
type = "int32"
value = "len"

[[args]]
name = "hop"
type = "int32"
value = "hop"

[[args]]
name = "out"
type = "float32"
size = "(n - len) // hop + 1"
init = "zeros"
output = true
"""


def _by_what(tmp_path: Path, source: str, div: str = "[]") -> dict[str, str]:
    path = tmp_path / "k.cu.toml"
    path.write_text(SPEC.format(div=div))
    spec = load_spec(path)
    made = mutants(source, spec.kernel, spec=spec)[1:]  # m00 does nothing
    return {m.what.split(" in `")[0].split(": ", 1)[1]: m.equivalent for m in made if "frames =" in m.what}


def test_a_count_raised_past_an_exact_launch_is_equivalent_and_one_lowered_is_not(tmp_path):
    found = _by_what(tmp_path, FRAMES)
    raised = [w for w, why in found.items() if "no smaller at every size" in why]
    assert "`-` -> `+`" in raised and "dropped `- len`" in raised  # (n + len) / hop + 1, n / hop + 1: larger
    lowered = {w: why for w, why in found.items() if w in ("`1` -> `0`", "dropped `+ 1`")}
    assert lowered and not any(lowered.values())  # one frame fewer: the last block returns early, caught


def test_not_where_the_launch_is_not_exact_or_the_count_is_used_otherwise(tmp_path):
    ragged = _by_what(tmp_path, FRAMES, div='["block_size_x"]')
    assert not any("no smaller at every size" in why for why in ragged.values())
    used = FRAMES.replace("atomicAdd(&out[f], s);", "atomicAdd(&out[f], s / frames);")
    assert not any("no smaller at every size" in why for why in _by_what(tmp_path, used).values())


def _claimed(tmp_path: Path, source: str, spec: str = SPEC) -> list[str]:
    path = tmp_path / "k.cu.toml"
    path.write_text(spec.format(div="[]"))
    made = mutants(source, "frame_sum", spec=load_spec(path))[1:]
    return [m.what for m in made if "frames =" in m.what and "no smaller at every size" in m.equivalent]


LOCAL = FRAMES.replace("float s = 0.0f;", "float s = 0.0f;\n    USE")


def test_not_where_the_count_sits_inside_a_larger_side_of_a_comparison(tmp_path):
    # hop * 4 - frames > f: 42 blocks add 1 at the spec's size, 37 once frames is raised: killable
    assert not _claimed(tmp_path, LOCAL.replace("USE", "if (hop * 4 - frames > f) s += 1.0f;"))
    # !f < frames: (!f) is 0 or 1, a count raised from 1 to 2 changes it for block 0
    assert not _claimed(tmp_path, LOCAL.replace("USE", "if (!f < frames) s += 1.0f;"))
    assert _claimed(tmp_path, LOCAL.replace("USE", "if (f < frames) s += 1.0f;"))  # a plain comparison still is


def test_not_where_the_raised_count_overflows_an_int(tmp_path):
    # n + len wraps negative in a 32-bit int: f >= frames for every block, all return: killable
    big = SPEC.replace("n = 96000", "n = 2147482000").replace("len = 400", "len = 2000").replace("hop = 160", "hop = 1")
    assert not any("`-` -> `+`" in w for w in _claimed(tmp_path, FRAMES, big))


def test_not_where_a_size_parameter_is_not_a_signed_int(tmp_path):
    # an unsigned n makes n - len wrap where the spec's arithmetic goes negative; a float hop divides exactly
    for source in (FRAMES.replace("int n,", "unsigned int n,"), FRAMES.replace("int hop,", "float hop,")):
        assert not _claimed(tmp_path, source)


def test_not_where_the_count_decrements_a_parameter(tmp_path):
    # C's (--n - len) / hop + 1 is 598 at n = 96080, one block short of the 599 launched: the last block
    # returns early, and a raised count lets it write; Python reads --n as n
    source = FRAMES.replace("(n - len) / hop + 1", "(--n - len) / hop + 1")
    assert not _claimed(tmp_path, source, SPEC.replace("n = 96000", "n = 96080"))


def test_not_where_the_block_index_local_is_shadowed_by_a_thread_index(tmp_path):
    # inside the braces f is threadIdx.x (0 to 127): threads 74 to 80 add 1 once the check size's 74 is 81
    spec = SPEC.replace("block_size_x = [32, 64]", "block_size_x = [128]")
    for shadow in ("int f{(int)threadIdx.x};", "int f((int)threadIdx.x);"):
        assert not _claimed(tmp_path, LOCAL.replace("USE", f"{{ {shadow} if (f < frames) s += 1.0f; }}"), spec)


def test_not_where_a_long_count_is_computed_in_int_and_overflows(tmp_path):
    big = SPEC.replace("n = 96000", "n = 2147482000").replace("len = 400", "len = 2000").replace("hop = 160", "hop = 1")
    source = FRAMES.replace("const int frames", "const long frames")  # n + len still wraps: int + int
    assert not any("`-` -> `+`" in w for w in _claimed(tmp_path, source, big))
