"""Issue 35 item 2, session 18's survivors (tests/corpus smith_waterman_antidiag on an H100: a residue
read as signed char, a score held in a short): residues of one narrow alphabet moved together to the
values with the top bit set (kernel/strengthen.py), and small scores the kernel only adds, subtracts
or picks scaled together past 16 bits (kernel/strengthen_shapes.py); each made only where it can tell
such a kernel apart, and shown to tell it apart on numpy stand-ins of the kernel."""

import numpy as np
import pytest

from kt_tui.kernel.inputs import make_args
from kt_tui.kernel.spec import parse_spec
from kt_tui.kernel.strengthen import candidates, case_spec

ALIGN = """
__global__ void align(const unsigned char *a, const unsigned char *b, int n, int match, int mismatch,
                      int gap, const int *prev, int *out)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const int s = a[i] == b[i] ? match : mismatch;
    int h = prev[i] + s;
    h = max(h, prev[i] - gap);
    out[i] = max(h, 0);
}
"""
SPEC = """kernel = "align"
problem_size = ["n"]
[sizes]
n = 4096
[tune_params]
block_size_x = [128]
[[args]]
name = "a"
type = "uint8"
size = "n"
low = 0
high = 4
[[args]]
name = "b"
type = "uint8"
size = "n"
low = 0
high = 4
seed = 2
[[args]]
name = "n"
type = "int32"
value = "n"
[[args]]
name = "match"
type = "int32"
value = 2
[[args]]
name = "mismatch"
type = "int32"
value = -3
[[args]]
name = "gap"
type = "int32"
value = 1
[[args]]
name = "prev"
type = "int32"
size = "n"
low = 0
high = 50
[[args]]
name = "out"
type = "int32"
size = "n"
output = true
"""


def align(a, b, match, mismatch, gap, prev, signed_a=False, short_s=False):
    """The kernel in numpy; `signed_a` reads `a` as signed char, `short_s` holds the score in a short."""
    a = a.astype(np.int8).astype(np.int64) if signed_a else a.astype(np.int64)
    s = np.where(a == b.astype(np.int64), match, mismatch)
    s = s.astype(np.int16).astype(np.int64) if short_s else s
    h = np.maximum(prev + s, prev - gap)
    return np.maximum(h, 0)


def _run(spec, **wrong):
    args = dict(zip([x.name for x in spec.args], make_args(spec, spec.sizes), strict=True))
    v = {k: spec.args[[x.name for x in spec.args].index(k)].value for k in ("match", "mismatch", "gap")}
    return align(args["a"], args["b"], v["match"], v["mismatch"], v["gap"], args["prev"].astype(np.int64), **wrong)


def _case(spec, words):
    found = [c for c in candidates(spec, ALIGN) if words in c["label"]]
    assert len(found) == 1, [c["label"] for c in candidates(spec, ALIGN)]
    return case_spec(spec, found[0])


@pytest.mark.parametrize("wrong", ["signed_a", "short_s"])
def test_each_case_tells_apart_a_kernel_the_spec_cannot(wrong):
    spec = parse_spec(SPEC)
    assert np.array_equal(_run(spec), _run(spec, **{wrong: True}))  # the survivor
    case = _case(spec, "top bit set" if wrong == "signed_a" else "times 32768")
    assert not np.array_equal(_run(case), _run(case, **{wrong: True}))


def test_the_residues_move_together_and_keep_meeting():
    case = _case(parse_spec(SPEC), "`a`, `b` drawn together over [128, 132)")
    args = dict(zip([x.name for x in case.args], make_args(case, case.sizes), strict=True))
    assert args["a"].min() >= 128 and args["b"].max() < 132
    assert 0.15 < np.mean(args["a"] == args["b"]) < 0.35  # as often as over [0, 4)


def test_the_scores_scale_together_and_nothing_else_does():
    case = _case(parse_spec(SPEC), "times 32768")
    values = {x.name: x.value for x in case.args if not x.is_array}
    assert values == {"n": "n", "match": 65536, "mismatch": -98304, "gap": 32768}


@pytest.mark.parametrize(
    "edit",
    [
        ("h = max(h, prev[i] - gap);", "h = max(h, prev[i] - gap * n);"),  # multiplied: a stride's shape
        ("h = max(h, prev[i] - gap);", "for (int k = 0; k < gap; ++k) h -= 1;"),  # a loop's bound
        ("h = max(h, prev[i] - gap);", "const int g = 1 + gap; h = max(h, prev[i] >> g);"),  # shifted via a local
        ("h = max(h, prev[i] - gap);", "if (gap > 2) h = 0;"),  # compared
        ("h = max(h, prev[i] - gap);", "h = max(h, prev[i + gap]);"),  # an index
    ],
)
def test_a_scalar_used_otherwise_is_not_a_weight(edit):
    spec = parse_spec(SPEC)
    labels = [c["label"] for c in candidates(spec, ALIGN.replace(*edit))]
    scaled = [lab for lab in labels if "times 32768" in lab]
    assert scaled and "`gap`" not in scaled[0], labels  # match and mismatch still are


def test_no_shift_for_one_array_a_wide_range_or_an_index_bound():
    one = SPEC.replace('name = "b"\ntype = "uint8"', 'name = "b"\ntype = "uint16"')
    wide = SPEC.replace("high = 4\n", "high = 200\n")
    index = SPEC.replace('type = "uint8"', 'type = "uint16"').replace("low = 0\nhigh = 4\n", 'low = 0\nhigh = "n"\n')
    for text in (one, wide, index):
        assert not [c for c in candidates(parse_spec(text), ALIGN) if "top bit set" in c["label"]]


def test_a_long_body_or_many_locals_from_one_score_scale_nothing():
    """Each score is read through the body once per local it is given to: bodies past 64 KiB and
    scores given to more than 8 locals are passed over (hostile kernels are bounded in time)."""
    spec = parse_spec(SPEC)
    padded = ALIGN.replace("out[i] = max(h, 0);", "out[i] = max(h, 0);\n" + "    h = h + 1;\n" * 6000)
    many = ALIGN.replace(
        "int h = prev[i] + s;", "".join(f"int t{k} = s + {k};\n" for k in range(9)) + "int h = prev[i] + s;"
    )
    for source in (padded, many):
        labels = [c["label"] for c in candidates(spec, source)]
        assert not any("`match`" in lab and "times 32768" in lab for lab in labels), labels


LENGTHS = """kernel = "pool"
problem_size = ["batch"]
grid_div_x = []
[sizes]
batch = 8
max_len = 300
[tune_params]
block_size_x = [128]
[[args]]
name = "x"
type = "float32"
size = "batch * max_len"
[[args]]
name = "lengths"
type = "int32"
size = "batch"
low = 1
high = "BOUND"
[[args]]
name = "batch"
type = "int32"
value = "batch"
[[args]]
name = "max_len"
type = "int32"
value = "max_len"
[[args]]
name = "out"
type = "float32"
size = "batch"
output = true
"""


@pytest.mark.parametrize(
    ("bound", "raised"), [("max_len + 1", 131073), ("max_len // 2 + 2", 262145), ("max_len", 131073)]
)
def test_an_index_bounded_by_an_expression_of_one_size_is_drawn_above_16_bits(bound, raised):
    """ctc_greedy_block_template's survivors (`lengths[b] & 0xffff`, a length held in a short) lived
    because its lengths' bound, `max_frames + 1`, is no single size: the size it names is raised until
    the bound passes 2**16."""
    spec = parse_spec(LENGTHS.replace("BOUND", bound))
    wide = [c for c in candidates(spec) if "`lengths` above 16 bits" in c["label"]]
    assert wide and wide[0]["sizes"]["max_len"] == raised, [c["label"] for c in candidates(spec)]


def test_no_index_case_for_a_bound_of_two_sizes_or_one_past_16_bits_already():
    for bound in ("max_len + batch", "max_len * 1000"):
        labels = [c["label"] for c in candidates(parse_spec(LENGTHS.replace("BOUND", bound)))]
        assert not any("`lengths` above 16 bits" in lab for lab in labels), labels


@pytest.mark.parametrize(
    "edit",
    [
        "int z = 0, g = gap; for (int k = 0; k < g; ++k) h -= 1; h += z;",  # a loop's bound: 32768 times the steps
        "int z = 0, g = gap; h = max(h, prev[i + g]) + z;",  # an index past the array
    ],
)
def test_a_score_given_to_a_later_local_of_a_list_is_followed(edit):
    # `int z = 0, g = gap;`: g, not only z, takes the score, and g bounds a loop or indexes
    source = ALIGN.replace("h = max(h, prev[i] - gap);", edit)
    labels = [c["label"] for c in candidates(parse_spec(SPEC), source)]
    scaled = [lab for lab in labels if "times 32768" in lab]
    assert scaled and "`gap`" not in scaled[0], labels


def test_a_score_passed_to_a_function_of_the_source_is_not_a_weight():
    # rep's loop runs g times: gap times 2**15 is 32768 times the steps; max and min only pick
    helper = "__device__ int rep(int h, int g) { for (int k = 0; k < g; ++k) h -= 1; return h; }\n"
    source = helper + ALIGN.replace("h = max(h, prev[i] - gap);", "h = h - rep(0, gap);")
    labels = [c["label"] for c in candidates(parse_spec(SPEC), source)]
    scaled = [lab for lab in labels if "times 32768" in lab]
    assert scaled and "`gap`" not in scaled[0], labels
    picked = ALIGN.replace("h = max(h, prev[i] - gap);", "h = min(max(h, gap), 100);")
    assert any("`gap`" in c["label"] and "times 32768" in c["label"] for c in candidates(parse_spec(SPEC), picked))
