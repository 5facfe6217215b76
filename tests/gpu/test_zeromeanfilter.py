"""The zeromeanfilter fixture (written in the shape of kernel_tuner's zeromeanfilter example, where an
H100 run found it: benchmarks/results/examples-h100-2026-11-23.txt): computeMeanHorizontally folds
its shared-memory partial sums in halves from block_size_x/2, which drops some unless block_size_x is
a power of two, while the script tunes 32*i for i in 1..8. A numpy model of the kernel shows which
configurations are wrong; the script passes no answer, so kernel_tuner would time them unchecked."""

import itertools
import shutil
from pathlib import Path

import numpy as np
import pytest

from kt_tui.compare import compare
from kt_tui.importer.run import import_script
from kt_tui.kernel.spec import load_spec

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "kernel_tuner_examples"


def horizontal(image: np.ndarray, bx: int) -> np.ndarray:
    """computeMeanHorizontally for one block_size_x, in float32 as the GPU adds (rows are independent,
    so block_size_y does not change the result)."""
    h, w = image.shape
    part = np.zeros((h, bx), np.float32)
    for tx in range(bx):
        for x in range(tx, w, bx):  # for (x = threadIdx.x; x < width; x += block_size_x) part += ...
            part[:, tx] += image[:, x]
    half = bx // 2
    while half > 0:  # for (half = block_size_x / 2; half > 0; half >>= 1) if (tx < half) ...
        part[:, :half] += part[:, half : 2 * half]
        half >>= 1
    return image - (part[:, 0] / np.float32(w))[:, None]


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    ex = Path(shutil.copytree(FIXTURES, tmp_path_factory.mktemp("zm") / "ex"))
    import_script(ex / "zeromeanfilter.py", ex / "out")
    spec = load_spec(ex / "out" / "computeMeanHorizontally.cu.toml")
    h, w = spec.args[0].value, spec.args[1].value
    h = spec.sizes[h] if isinstance(h, str) else h
    image = np.load(ex / "out" / spec.args[2].file).reshape(h, w)
    return spec, image


def test_the_model_is_the_exact_zero_mean_filter_for_powers_of_two(imported):
    spec, image = imported
    exact = image - image.mean(1, dtype=np.float64)[:, None]
    for bx in (32, 64, 128, 256):
        assert compare("input", exact.ravel(), horizontal(image, bx).ravel(), *spec.args[2].tolerance())["ok"]


def test_block_sizes_that_are_not_powers_of_two_give_wrong_results(imported):
    spec, image = imported
    reference = horizontal(image, spec.baseline_params()["block_size_x"]).ravel()
    atol, rtol = spec.args[2].tolerance()
    wrong = {
        bx
        for bx in spec.tune_params["block_size_x"]
        if not compare("input", reference, horizontal(image, bx).ravel(), atol, rtol)["ok"]
    }
    assert wrong == {96, 160, 192, 224}
    # the baseline (32, 1) is the reference; of the next 20 configurations of kernel_tuner's order,
    # (32, 2) to (160, 2), 6 are wrong (the count the H100 run found on kernel_tuner's example)
    order = [c for c in itertools.product(*spec.tune_params.values()) if c[0] * c[1] <= 1024]
    assert order[0] == tuple(spec.baseline_params().values())
    assert sum(bx in wrong for bx, _ in order[1:21]) == 6
