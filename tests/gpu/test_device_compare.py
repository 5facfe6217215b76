"""kt_tui/gpu/device/compare.py on a GPU, for every backend installed (pycuda, nvcuda = cuda-python,
cupy): the device verdict of every case in tests/gpu/compare_cases.py, for every dtype, at sizes 1,
1000 and 2^24+3, is exactly compare.compare's on the host copies of the same arrays; OutputReset
restores an output that the device overwrote."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

from kt_tui.compare import compare
from kt_tui.gpu.device.compare import Checker, OutputReset

from .compare_cases import all_dtypes, cases, tolerances

pytestmark = [pytest.mark.gpu, pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")]

BIG = (1 << 24) + 3
NEEDS = {"pycuda": "pycuda", "nvcuda": "cuda", "cupy": "cupy"}


def device(lang: str):
    if importlib.util.find_spec(NEEDS[lang]) is None:
        pytest.skip(f"{NEEDS[lang]} is not installed")
    from kernel_tuner.core import DeviceInterface, KernelSource

    return DeviceInterface(KernelSource("k", "__global__ void k() {}", lang), quiet=True)


@pytest.fixture(scope="module", params=["pycuda", "nvcuda", "cupy"])
def dev(request):
    return device(request.param)


def same(got, want) -> bool:
    return json.dumps(got) == json.dumps(want)


@pytest.mark.parametrize("n", [1, 1000, BIG])
@pytest.mark.parametrize("dtype", all_dtypes())
def test_device_verdicts_are_compare_pys(dev, dtype, n):
    wrong, count = [], 0
    full = n != BIG  # a few cases of each kind at the big size, every case at the small ones
    for atol, rtol in tolerances(dtype)[: None if full else 1]:
        first = np.zeros(n, dtype)
        (buf,) = dev.ready_argument_list([first])  # the output buffer as kernel_tuner makes it
        checker = Checker(dev, {"out": first}, {"out": (atol, rtol)})
        assert checker.where == "device", checker.where
        try:
            for label, ref, out, a, r in cases(dtype, n, full=full):
                if (a, r) != (atol, rtol):
                    continue
                dev.dev.memcpy_htod(buf, np.ascontiguousarray(out))
                for kept in (False, True):  # compare.py's read-only reference (kept bounds) and its other path
                    reference = ref.copy()
                    reference.flags.writeable = not kept
                    checker.set_reference({"out": reference})
                    got = checker.compare({"out": buf})
                    back = np.zeros_like(out)
                    dev.memcpy_dtoh(back, buf)
                    want = [compare("out", reference, back, atol, rtol)]
                    count += 1
                    if not same(got, want):
                        wrong.append(f"{label} kept={kept}: got {got[0]}, want {want[0]}")
        finally:
            checker.close()
    assert count >= 5
    assert not wrong, f"{len(wrong)} of {count} differ; first: {wrong[0]}"


def test_a_wrong_element_is_found_at_every_place_of_a_big_output(dev):
    """Many blocks race for the first bad index and the largest error: the smallest index and the exact maximum win."""
    ref = np.random.default_rng(3).standard_normal(BIG).astype(np.float32)
    (buf,) = dev.ready_argument_list([ref])
    checker = Checker(dev, {"out": ref}, {"out": (1e-5, 1e-4)})
    try:
        for places in ([BIG - 1], [0, BIG - 1], [BIG // 2, BIG // 2 + 1, 77], list(range(4096, BIG, 65537))):
            out = ref.copy()
            out[places] += np.float32(1.5) + np.arange(len(places), dtype=np.float32)
            dev.dev.memcpy_htod(buf, out)
            got = checker.compare({"out": buf})[0]
            assert same(got, compare("out", ref, out, 1e-5, 1e-4)), places
            assert got["first_bad"] == min(places) and got["mismatches"] == len(places)
    finally:
        checker.close()


def test_output_reset_restores_what_the_device_overwrote(dev):
    pristine = np.arange(BIG, dtype=np.float32)
    small = np.full(1000, 7, np.int16)
    gpu_args = dev.ready_argument_list([pristine, np.int32(5), small])
    reset = OutputReset(dev, gpu_args, {"big": 0, "small": 2})
    try:
        for _ in range(2):
            dev.dev.memcpy_htod(gpu_args[0], np.full_like(pristine, np.nan))  # the device writes over both outputs
            dev.dev.memcpy_htod(gpu_args[2], np.zeros_like(small))  # (cupy's memset sets elements, not bytes)
            back = np.zeros_like(pristine)
            dev.memcpy_dtoh(back, gpu_args[0])
            assert np.isnan(back).all()
            reset.reset()
            dev.memcpy_dtoh(back, gpu_args[0])
            assert np.array_equal(back, pristine)
            got = np.zeros_like(small)
            dev.memcpy_dtoh(got, gpu_args[2])
            assert np.array_equal(got, small)
    finally:
        reset.close()


def test_outputs_that_do_not_fit_twice_are_compared_on_the_host(dev, monkeypatch):
    ref = np.linspace(0, 1, 5000)
    out = ref.copy()
    out[17] = 9
    (buf,) = dev.ready_argument_list([out])
    checker = Checker(dev, {"out": ref}, {"out": (1e-9, 1e-7)})
    monkeypatch.setattr(type(checker.backend), "free_bytes", lambda self: 0)
    checker.set_reference({"out": ref})
    assert checker.where.startswith("host: outputs and references")
    assert same(checker.compare({"out": buf}), [compare("out", ref, out, 1e-9, 1e-7)])
    checker.close()
