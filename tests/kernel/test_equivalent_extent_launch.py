"""Issue 35: two more equivalents by construction (kernel/equivalent_launch.py), each claim run in numpy,
and their near misses left to the runs: a `__shared__` array declared larger, and a guard of
blockIdx against the count a launch of one block per item makes exactly that many blocks of."""

from dataclasses import replace
from pathlib import Path

import numpy as np

from kt_tui.kernel.mutant import mutants
from kt_tui.kernel.spec import load_spec

CORPUS = Path(__file__).parents[1] / "corpus"


def _labels(name, spec=None, source=None):
    spec = spec or load_spec(CORPUS / "specs" / f"{name}.cu.toml")
    text = source or (CORPUS / f"{name}.cu").read_text()
    return {m.what: m.equivalent for m in mutants(text, spec.kernel, spec=spec)}


def _find(labels, words):
    return next(why for what, why in labels.items() if words in what)


def _conv1d_tile(x, w, n, block, extent, taps=7):
    """tests/corpus/conv1d_tile.cu with its tile `buf` of `extent` elements: the outputs, and the
    highest element of buf any thread touched."""
    y = np.zeros(n, np.float32)
    touched = 0
    for start in range(0, n, block):
        buf = np.full(extent, np.nan, np.float32)
        for t in range(block):
            i = start + t
            buf[t] = x[i] if i < n + taps - 1 else 0.0
            touched = max(touched, t)
            if t < taps - 1:
                buf[t + block] = x[i + block] if i + block < n + taps - 1 else 0.0
                touched = max(touched, t + block)
        for t in range(block):
            if start + t < n:
                y[start + t] = sum(w[k] * buf[t + k] for k in range(taps))
                touched = max(touched, t + taps - 1)
    return y, touched


def test_a_shared_array_declared_larger_is_equivalent():
    rng = np.random.default_rng(1)
    tile, taps = 256, 7
    for n in (1, 255, 256, 257, 700):
        x, w = rng.standard_normal(n + taps - 1).astype(np.float32), rng.standard_normal(taps).astype(np.float32)
        for block in (32, 64, 128, 256):
            y, touched = _conv1d_tile(x, w, n, block, tile + taps - 1)
            assert touched < tile + taps - 1  # the original stays within buf
            for extent in (tile + taps, tile + taps + 1):  # `- 1` dropped, `-` -> `+`
                assert np.array_equal(_conv1d_tile(x, w, n, block, extent)[0], y)
    labels = _labels("conv1d_tile")
    said = "declared with more elements"
    assert said in _find(labels, "`-` -> `+` in `__shared__ float buf[TILE + TAPS - 1]")
    assert said in _find(labels, "dropped `- 1` in `__shared__ float buf[TILE + TAPS - 1]")
    assert _find(labels, "dropped `+ TAPS` in `__shared__") == ""  # smaller: the halo falls off it
    assert _find(labels, "`+` -> `-` in `__shared__") == ""


def test_a_shared_array_changed_beside_dynamic_shared_memory_or_below_another_operator_counts():
    text = (CORPUS / "conv1d_tile.cu").read_text()
    spec = load_spec(CORPUS / "specs" / "conv1d_tile.cu.toml")
    extern = text.replace("    int i = blockIdx.x", "    extern __shared__ float more[];\n    int i = blockIdx.x")
    two = text.replace("buf[TILE + TAPS - 1];", "buf[2][TILE + TAPS - 1];")
    shifted = text.replace("buf[TILE + TAPS - 1];", "buf[TILE >> 2 - 1];")  # `- 1` dropped: 64 -> 32 elements
    macro = text.replace("constexpr int TILE = 256;", "#define TILE 256 >> 0")  # the same, through a macro
    sized = text.replace("    int i = blockIdx.x", "    int size = sizeof(buf);\n    int i = blockIdx.x")
    for source in (extern, two, shifted, macro, sized):
        labels = _labels("conv1d_tile", spec, source)
        assert not any("declared with more" in why for why in labels.values())


def _bags(num_bags, grid, strict):
    """Which blocks of a launch of `grid` blocks pass embedding_bag_sum's `if (bag >= num_bags)
    return;` (the mutant: `bag > num_bags`) and go on to read offsets[bag + 1]."""
    bag = np.arange(grid)
    return bag[~((bag > num_bags) if strict else (bag >= num_bags))]


def test_a_guard_of_the_block_against_an_exact_launch_is_equivalent():
    spec = load_spec(CORPUS / "specs" / "embedding_bag_sum.cu.toml")  # problem_size = ["bags"], grid_div_x = []
    for bags in (1, 7, spec.sizes["bags"]):
        assert np.array_equal(_bags(bags, bags, True), _bags(bags, bags, False))  # grid = bags: no block at the tie
    assert len(_bags(7, 8, True)) > len(_bags(7, 8, False))  # one block more would compute bag 7: not so
    said = "the launch makes exactly `num_bags` blocks on x"
    assert said in _find(_labels("embedding_bag_sum"), "`>=` -> `>` in `if (bag >= num_bags)`")
    segments = _labels("segmented_sum")
    assert "exactly `num_segments` blocks" in _find(segments, "`<` -> `<=` in `if (blockIdx.x < num_segments)")
    batched = _labels("axpy_strided_batched")  # i is a thread index on x: blocks of threads, a guard needed
    assert _find(batched, "line 7:11: `<` -> `<=`") == ""
    assert "exactly `batch_count` blocks on y" in _find(batched, "line 7:20: `<` -> `<=`")


def test_a_block_guard_counts_without_an_exact_launch_or_where_a_side_is_assigned():
    spec = load_spec(CORPUS / "specs" / "embedding_bag_sum.cu.toml")
    text = (CORPUS / "embedding_bag_sum.cu").read_text()
    plain = {m.what: m.equivalent for m in mutants(text, spec.kernel)}
    assert _find(plain, "`>=` -> `>` in `if (bag >= num_bags)`") == ""  # no spec: no launch known
    divided = replace(spec, grid_div_x=None)  # bags / block_size_x blocks of threads
    assert _find(_labels("embedding_bag_sum", divided), "if (bag >= num_bags)") == ""
    moved = text.replace("    if (bag >= num_bags)", "    bag += 1;\n    if (bag >= num_bags)")
    assert _find(_labels("embedding_bag_sum", spec, moved), "if (bag >= num_bags)") == ""
    told = text.replace("    if (bag >= num_bags)", "    num_bags -= 1;\n    if (bag >= num_bags)")
    assert _find(_labels("embedding_bag_sum", spec, told), "if (bag >= num_bags)") == ""
    helper = "__device__ bool past(int bag, int num_bags) { return bag >= num_bags; }\n"
    called = text.replace("__global__", helper + "__global__", 1).replace(
        "if (bag >= num_bags)", "if (past(bag, num_bags))"
    )
    assert _find(_labels("embedding_bag_sum", spec, called), "`>=` -> `>` in `__device__ bool past") == ""
