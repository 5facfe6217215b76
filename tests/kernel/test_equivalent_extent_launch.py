"""Issue 35: three more equivalents by construction (kernel/equivalent_launch.py), each claim run in numpy,
and their near misses left to the runs: a `__shared__` array declared larger, a guard of blockIdx
against the count a launch of one block per item makes exactly that many blocks of, and a
compare-exchange with a xor partner flipped at the tie (the partner itself)."""

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


def _bitonic_step(values, j, k, partner_from_self):
    """tests/corpus/bitonic_step.cu, one thread per element in order of i (the pairs are disjoint, so
    the order does not matter), with `ixj > i` or (the mutant) `ixj >= i`."""
    v = values.copy()
    n = v.size
    for i in range(n):
        ixj = i ^ j
        if i < n and (ixj >= i if partner_from_self else ixj > i) and ixj < n:
            up = (i & k) == 0
            a, b = v[i], v[ixj]
            if (up and a > b) or (not up and a < b):
                v[i], v[ixj] = b, a
    return v


def test_a_compare_exchange_with_its_xor_partner_flipped_at_the_tie_is_equivalent():
    rng = np.random.default_rng(3)
    for values in (rng.standard_normal(64).astype(np.float32), rng.integers(-2, 3, 64).astype(np.float32)):
        values[5] = np.nan
        for j in (0, 1, 2, 8, 32):  # the tie ixj == i is j == 0, for every thread at once
            for k in (2, 16, 64):
                right = _bitonic_step(values, j, k, False)
                assert np.array_equal(right, _bitonic_step(values, j, k, True), equal_nan=True), (j, k)
    said = "`ixj == i` means `j == 0` in every thread"
    assert said in _find(_labels("bitonic_step"), "line 6:22: `>` -> `>=`")
    assert _find(_labels("bitonic_step"), "line 6:33: `<` -> `<=`") == ""  # ixj == n: a read past the end


def test_a_partner_flip_counts_unless_the_partner_is_a_xor_and_nothing_is_written_at_the_tie():
    text = (CORPUS / "bitonic_step.cu").read_text()
    spec = load_spec(CORPUS / "specs" / "bitonic_step.cu.toml")
    near = {
        "a sum": text.replace("i ^ j;", "i + j;"),  # no xor: i + j == i holds for j == 0 too, but no pattern of its own
        "a loose compare": text.replace("(up && a > b)", "(up && a >= b)"),  # true at a == b: it writes
        "a write before": text.replace("        bool up", "        values[i] += 0.0f;\n        bool up"),
        "a call": text.replace("bool up = (i & k) == 0;", "bool up = (atomicAdd(&values[i], 0.0f), (i & k) == 0);"),
        "a write after": text.replace("\n    }\n}", "\n    }\n    if (i == 0)\n        values[0] += 0.0f;\n}"),
        "j assigned": text.replace("    unsigned int ixj", "    j = j >> 1;\n    unsigned int ixj"),
        "an else": text.replace(
            "            values[ixj] = a;\n        }",
            "            values[ixj] = a;\n        } else {\n            values[i] = 0.0f;\n        }",
        ),
    }
    for what, source in near.items():
        assert source != text, what
        labels = _labels("bitonic_step", spec, source)
        assert not any("in every thread" in why for why in labels.values()), what
