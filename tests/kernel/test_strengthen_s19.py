"""Issue 35 item 2, session 18's survivors on an H100 that no stronger case reached
(benchmarks/results/mutants-h100-2026-12-07-s18.txt): band corners and triangles the user's Python
makes, a class id held in a short, a warp's writer moved to lane 1 or past the bound. The cases
(kernel/strengthen_code.py) planned on the corpus kernels with their hand specs, each shown to tell
the survivor apart on a numpy stand-in of the kernel."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from kt_tui.kernel import inputs
from kt_tui.kernel.inputs import make_args
from kt_tui.kernel.spec import load_spec, parse_spec
from kt_tui.kernel.strengthen import _BUDGET, _bytes, candidates, case_spec

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
_gen = importlib.util.spec_from_file_location("corpus_gen18_s19", CORPUS / "specs" / "gen18.py")
assert _gen is not None and _gen.loader is not None
gen18 = importlib.util.module_from_spec(_gen)
_gen.loader.exec_module(gen18)


def _plan(name):
    spec = load_spec(CORPUS / "specs" / f"{name}.cu.toml")
    return spec, candidates(spec, (CORPUS / f"{name}.cu").read_text())


def _case(name, words):
    spec, cases = _plan(name)
    found = [c for c in cases if words in c["label"]]
    assert len(found) == 1, [c["label"] for c in cases]
    return spec, found[0]


@pytest.fixture
def users_python(monkeypatch):
    """The user's generators of tests/corpus/specs/gen18.py, as the GPU worker would import them."""
    monkeypatch.setattr(inputs, "user_function", lambda spec, ref: getattr(gen18, ref.partition(":")[2]))


def _args(spec):
    return dict(zip([a.name for a in spec.args], make_args(spec, spec.sizes), strict=True))


def test_log_mel_band_corners_are_made_past_16_bits_with_their_frames(users_python):
    """The corners `bin_edges` (the user's Python, below `n_fft / 2 + 1`) at n_fft past 2**18: a
    corner in a short or its low 16 bits reads other bins; ld is raised with n_fft, so frames stay
    n_fft / 2 + 1 bins long and the original within `spec`."""
    spec, case = _case("log_mel_fbank_float2", "`bin_edges` above 16 bits")
    sizes = {**spec.sizes, **case["sizes"]}
    assert sizes["n_fft"] == 262145 and sizes["ld"] >= sizes["n_fft"] // 2 + 1
    assert _bytes(spec, sizes) <= _BUDGET
    edges = _args(case_spec(spec, case))["bin_edges"].astype(np.int64)
    n_mels = sizes["n_mels"]
    for corner in (edges[:n_mels], edges[1 : n_mels + 1], np.minimum(edges[2:], sizes["n_fft"] // 2 + 1)):
        assert np.any(corner & 0xFFFF != corner) and np.any(corner.astype(np.int16) != corner)
    assert np.all(edges <= sizes["n_fft"] // 2)  # indices the frames hold


def _closest(o, d, tris, wrong=""):
    """The closest hit per ray (ray_tri_closest_warp.cu in numpy: a lane's loop, then the merge down
    the warp); `wrong` is a survivor: "merge" (`other_t <= best`) or "edge" (`u + v >= 1`)."""
    v0, e1, e2 = tris[:, 0], tris[:, 1], tris[:, 2]
    hit_t, hit_id = [], []
    for (ox, oy, oz, ow), (dx, dy, dz, dw) in zip(o, d, strict=True):
        px, py, pz = dy * e2[:, 2] - dz * e2[:, 1], dz * e2[:, 0] - dx * e2[:, 2], dx * e2[:, 1] - dy * e2[:, 0]
        det = e1[:, 0] * px + e1[:, 1] * py + e1[:, 2] * pz
        with np.errstate(all="ignore"):
            inv = np.float32(1) / det
            sx, sy, sz = ox - v0[:, 0], oy - v0[:, 1], oz - v0[:, 2]
            u = (sx * px + sy * py + sz * pz) * inv
            qx, qy, qz = sy * e1[:, 2] - sz * e1[:, 1], sz * e1[:, 0] - sx * e1[:, 2], sx * e1[:, 1] - sy * e1[:, 0]
            v = (dx * qx + dy * qy + dz * qz) * inv
            dist = (e2[:, 0] * qx + e2[:, 1] * qy + e2[:, 2] * qz) * inv
            out = (u + v >= 1) if wrong == "edge" else (u + v > 1)
            ok = (np.abs(det) >= np.float32(1e-8)) & (u >= 0) & (u <= 1) & (v >= 0) & ~out & (dist > ow)
        best, ids = [dw] * 32, [-1] * 32
        for t in np.flatnonzero(ok):
            if dist[t] < best[t % 32]:
                best[t % 32], ids[t % 32] = dist[t], int(t)
        off = 16
        while off:
            ot = [best[k + off] if k + off < 32 else best[k] for k in range(32)]
            oi = [ids[k + off] if k + off < 32 else ids[k] for k in range(32)]
            for k in range(32):
                less = ot[k] <= best[k] if wrong == "merge" else ot[k] < best[k]
                if oi[k] >= 0 and (ids[k] < 0 or less or (ot[k] == best[k] and oi[k] < ids[k])):
                    best[k], ids[k] = ot[k], oi[k]
            off //= 2
        hit_t.append(best[0])
        hit_id.append(ids[0])
    return np.array(hit_t, np.float32), np.array(hit_id)


@pytest.mark.parametrize("wrong", ["merge", "edge"])
def test_ray_tri_triangles_the_users_python_makes_are_rounded_into_ties(users_python, wrong):
    """Rays and triangles from the user's Python never tie (a hit exactly on an edge, two hits at one
    distance): rounded to whole numbers they do, on the same geometry."""
    spec, case = _case("ray_tri_closest_warp", "rounded to whole numbers")
    at = {"nrays": 101, "ntris": 3000}  # a check size: the case runs there first
    for s, dies in ((spec, False), (case_spec(spec, case), True)):
        a = _args(case_spec(s, {"sizes": at}))
        o, d = a["ray_orig"].reshape(-1, 4), a["ray_dir"].reshape(-1, 4)
        tris = a["tris"].reshape(-1, 3, 4)
        right, bad = _closest(o, d, tris), _closest(o, d, tris, wrong)
        same = np.array_equal(right[0], bad[0]) and np.array_equal(right[1], bad[1])
        assert same != dies


def test_rounding_keeps_the_order_and_signs_the_users_python_gave(monkeypatch):
    from kt_tui.kernel.inputs import rounded_within  # new with init = "rounded": the other tests fail apart on main

    made = np.array([-2.6, -0.2, 0.4, 0.4, 1.5, 7.2], np.float32)  # sorted, one tie: a strict lane is kept
    monkeypatch.setattr(inputs, "user_function", lambda spec, ref: lambda sizes: made)
    spec = parse_spec(
        'kernel = "k"\nproblem_size = ["n"]\n[sizes]\nn = 6\n[tune_params]\nblock_size_x = [32]\n'
        '[[args]]\nname = "x"\ntype = "float32"\nsize = "n"\ninit = "rounded"\nfunction = "g:f"\n'
        '[[args]]\nname = "y"\ntype = "float32"\nsize = "n"\noutput = true\n'
    )
    x = make_args(spec, spec.sizes)[0]
    assert list(x) == [-2, 0, 0, 0, 2, 7]  # -2.6 to -2: within the range the user's Python drew
    pairs = np.array([[-4.6, 0.2], [0.4, 0.8], [3.5, 0.5]], np.float32).reshape(
        -1
    )  # a float2: lane y holds no whole number
    assert list(rounded_within(pairs, 2)) == pytest.approx([-4, 0.2, 0, 0.8, 3, 0.5])


def test_ctc_class_ids_pass_16_bits_where_the_loop_over_classes_is_raised():
    """`arg = c` keeps the loop's counter as the frame's class: nclasses past 2**17 (batch and frames
    halved to fit 256 MiB) makes ids a short turns negative, and `id >= 0` drops their frames."""
    spec, case = _case("ctc_greedy_block_template", "a loop's counter to `nclasses` kept as a value")
    s = case_spec(spec, case)
    assert s.sizes["nclasses"] == 131073 and _bytes(s, s.sizes) <= _BUDGET
    a = _args(s)
    b, t, c = s.sizes["batch"], s.sizes["max_frames"], s.sizes["nclasses"]
    lengths = np.minimum(a["lengths"], t)
    ids = np.where(np.arange(t)[None, :] < lengths[:, None], a["logits"].reshape(b, t, c).argmax(2), -1)
    prev = np.concatenate([np.full((b, 1), -2), ids[:, :-1]], 1)

    def keep(i):
        return (i >= 0) & (i != c - 1) & ((np.arange(t)[None, :] == 0) | (prev != i))

    assert not np.array_equal(keep(ids), keep(ids.astype(np.int16).astype(np.int64)))


def _ballot(col, n_arg, threshold, block, wrong=""):
    """valid_bitmask_ballot.cu in numpy: the words lane 0 writes (`wrong`: "lane1" moves the writer
    to lane 1, "bound" its guard to `i <= n`); None where a word is not written."""
    words = [None] * -(-len(col) // 32)
    threads = -(-len(col) // block) * block
    for w in range(threads // 32):
        first = 32 * w
        bits = sum(1 << k for k in range(32) if first + k < n_arg and col[first + k] > threshold)
        writer = first + (1 if wrong == "lane1" else 0)
        if (writer <= n_arg if wrong == "bound" else writer < n_arg) and first // 32 < len(words):
            words[first // 32] = bits
    return words


@pytest.mark.parametrize(("wrong", "words"), [("lane1", "one thread in range"), ("bound", "whole warps")])
def test_valid_bitmask_warp_edges_tell_lane_1_and_the_bound_apart(wrong, words):
    """lane == 1 writes lane 0's word except in a last warp whose only thread in range is lane 0 (n =
    65); `i <= n` writes one more word only where n is whole warps (the scalar 64, the arrays 65)."""
    spec, case = _case("valid_bitmask_ballot", words)
    for s, dies in ((spec, False), (case_spec(spec, case), True)):
        for at in [e["sizes"] for e in spec.extra_sizes()]:
            s_at = case_spec(s, {"sizes": {**at, **case["sizes"]} if dies else at})
            a = _args(s_at)
            col = a["col"][:: s_at.sizes["stride"]]
            right = _ballot(col, int(a["n"]), 0.5, 256)
            assert (right != _ballot(col, int(a["n"]), 0.5, 256, wrong)) == dies


SPEC = """kernel = "k"
problem_size = ["n"]
[sizes]
n = 5000
m = 300
[tune_params]
block_size_x = [128]
[[args]]
name = "edges"
type = "int32"
size = "n + 1"
init = "INIT"
[[args]]
name = "x"
type = "float32"
size = "m"
[[args]]
name = "n"
type = "int32"
value = "n"
[[args]]
name = "m"
type = "int32"
value = "m"
[[args]]
name = "out"
type = "float32"
size = "n"
output = true
"""
KERNEL = """__global__ void k(const int *edges, const float *x, int n, int m, float *out)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int hi = min(edges[i + 1], m);
    float s = 0.0f;
    for (int j = edges[i]; j < hi; ++j) s += x[j];
    out[i] = s;
}
"""


def test_a_clamped_index_raises_its_bound_only_where_the_users_python_makes_it():
    made = parse_spec(SPEC.replace('init = "INIT"', 'init = "function"\nfunction = "g:edges"'))
    drawn = parse_spec(SPEC.replace('init = "INIT"', "low = 0\nhigh = 300"))  # the spec's values: no size moves them
    wide = [c for c in candidates(made, KERNEL) if "`edges` above 16 bits" in c["label"]]
    assert wide and wide[0]["sizes"]["m"] == 131073, [c["label"] for c in candidates(made, KERNEL)]
    assert not [c for c in candidates(drawn, KERNEL) if "above 16 bits (the kernel clamps" in c["label"]]


def test_a_counter_only_indexing_and_a_kernel_without_warps_get_neither_case():
    kernel = KERNEL.replace("for (int j = edges[i]; j < hi; ++j) s += x[j];", "for (int j = 0; j < m; ++j) s += x[j];")
    labels = [c["label"] for c in candidates(parse_spec(SPEC.replace("INIT", "random")), kernel)]
    assert not any("kept as a value" in lab or "last warp" in lab for lab in labels), labels
    kept = kernel.replace("s += x[j];", "{ s += x[j]; if (x[j] > 0.5f) best = j; }").replace(
        "float s = 0.0f;", "float s = 0.0f; int best = -1;"
    )
    labels = [c["label"] for c in candidates(parse_spec(SPEC.replace("INIT", "random")), kept)]
    assert any("`j` above 16 bits (a loop's counter to `m` kept as a value)" in lab for lab in labels), labels


def test_a_long_body_or_many_loops_are_read_within_bounds():
    """Hostile kernels stay cheap to plan: a body past 64 KiB is not read for clamps and counters, and
    at most 64 loops or clamps of one are (the one kept past them is not found)."""
    spec = parse_spec(SPEC.replace("INIT", "random"))
    kept = KERNEL.replace(
        "for (int j = edges[i]; j < hi; ++j) s += x[j];", "int best = 0; for (int j = 0; j < m; ++j) best = j;"
    )
    padded = kept.replace("out[i] = s;", "out[i] = s;\n" + "    s = s + 1.0f;\n" * 6000)
    loops = kept.replace("int best = 0;", "int best = 0;" + "for (int q = 0; q < 2; ++q) s += 1.0f;" * 64)
    assert any("kept as a value" in c["label"] for c in candidates(spec, kept))
    for source in (padded, loops):
        assert not any("kept as a value" in c["label"] for c in candidates(spec, source))
