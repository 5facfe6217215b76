"""kt_tui/gpu/device/compare.py on the CPU: its CUDA source builds for sm_90 with nvcc; the same
source built for the host gives, through the real Checker, exactly compare.compare's verdicts on
every case of tests/gpu/compare_cases.py; the host fallbacks; the dtype table; OutputReset."""

from __future__ import annotations

import json
import shutil
import subprocess

import numpy as np
import pytest

from kt_tui.compare import compare, compare_all
from kt_tui.gpu.device.compare import BACKENDS, DTYPES, Checker, OutputReset, kernel_names, kernel_source

from .compare_cases import all_dtypes, cases
from .host_backend import CXX, HostBackend, HostDevice, build_host

pytestmark = [
    pytest.mark.skipif(CXX is None, reason="no C++ compiler to build the kernels for the host"),
    pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning"),
]


@pytest.fixture(autouse=True)
def host(monkeypatch):
    monkeypatch.setitem(BACKENDS, "HostFunctions", HostBackend)
    HostBackend.released.clear()
    HostBackend.builds = 0


def same(got, want) -> bool:
    """Equal key for key, in the same order and with the same Python types (as the store keeps them)."""
    return json.dumps(got) == json.dumps(want)


def judged(ref: np.ndarray, out: np.ndarray, atol, rtol, kept: bool):
    ref = ref.copy()
    ref.flags.writeable = not kept  # compare.py keeps the bounds of a read-only reference: another path
    want = compare("out", ref, out, atol, rtol)
    checker = Checker(HostDevice(), {"out": ref}, {"out": (atol, rtol)})
    try:
        assert checker.where == "device"
        got = checker.compare({"out": np.ascontiguousarray(out)})[0]
    finally:
        checker.close()
    return got, want


@pytest.mark.parametrize("dtype", all_dtypes())
@pytest.mark.parametrize("n", [1, 1000, 4099])
def test_host_built_kernels_judge_as_compare_does(dtype, n):
    wrong = []
    count = 0
    for label, ref, out, atol, rtol in cases(dtype, n):
        for kept in (False, True):
            got, want = judged(ref, out, atol, rtol, kept)
            count += 1
            if not same(got, want):
                wrong.append(f"{label} kept={kept}: got {got}, want {want}")
    assert count > 20
    assert not wrong, f"{len(wrong)} of {count} differ; first: {wrong[0]}"


def test_the_cases_cover_both_verdicts_and_every_float_path():
    """The cases are worth running: wrong and right outputs, NaN and inf, both of compare's float passes."""
    oks = {True: 0, False: 0}
    for dtype in ("float16", "int8", "complex64"):
        for _, ref, out, atol, rtol in cases(dtype, 1000):
            oks[compare("o", ref, out, atol, rtol)["ok"]] += 1
    assert oks[True] > 10 and oks[False] > 10


_HALF = r"""
extern "C" void t_h2f(const unsigned short* h, float* f, long n) { for (long i = 0; i < n; ++i) f[i] = kt_h2f(h[i]); }
extern "C" void t_f2h(const float* f, unsigned short* h, long n) { for (long i = 0; i < n; ++i) h[i] = kt_f2h(f[i]); }
"""


def test_half_conversions_are_numpys():
    """Every half to float, and floats at, between and around every half to half, as numpy converts."""
    import ctypes

    lib = build_host(kernel_source(["float16"]) + _HALF)
    halves = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    got = np.empty(halves.size, np.float32)
    lib.t_h2f(ctypes.c_void_p(halves.ctypes.data), ctypes.c_void_p(got.ctypes.data), ctypes.c_long(halves.size))
    want = halves.view(np.float16).astype(np.float32)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32), equal_nan=False) or (
        np.array_equal(np.isnan(got), np.isnan(want)) and np.array_equal(got[~np.isnan(got)], want[~np.isnan(want)])
    )
    finite = np.sort(want[np.isfinite(want)].astype(np.float64))
    mids = (finite[1:] + finite[:-1]) / 2
    rng = np.random.default_rng(1)
    floats = np.concatenate(
        [
            want,
            mids.astype(np.float32),
            np.nextafter(mids.astype(np.float32), np.float32(np.inf)),
            np.nextafter(mids.astype(np.float32), np.float32(-np.inf)),
            np.array([65504, 65519.99, 65520, 65536, 1e10, 2.0**-25, 2.0**-24, 3 * 2.0**-26], np.float32),
            rng.integers(0, 1 << 32, 1 << 20, dtype=np.uint64).astype(np.uint32).view(np.float32),
        ]
    ).astype(np.float32)
    floats = np.concatenate([floats, -floats])
    out = np.empty(floats.size, np.uint16)
    lib.t_f2h(ctypes.c_void_p(floats.ctypes.data), ctypes.c_void_p(out.ctypes.data), ctypes.c_long(floats.size))
    with np.errstate(over="ignore"):
        expect = floats.astype(np.float16)
    nan = np.isnan(expect)
    assert np.array_equal(np.isnan(out.view(np.float16)), nan)
    assert np.array_equal(out[~nan], expect.view(np.uint16)[~nan])


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc")
def test_kernel_source_builds_with_nvcc_for_sm90(tmp_path):
    (tmp_path / "k.cu").write_text(kernel_source())
    run = subprocess.run(["nvcc", "-cubin", "-arch=sm_90", "-o", "k.cubin", "k.cu"], cwd=tmp_path, capture_output=True)
    assert run.returncode == 0, run.stderr.decode()
    cubin = (tmp_path / "k.cubin").read_bytes()
    for dtype in DTYPES:
        for name in kernel_names(dtype):
            assert name.encode() in cubin


def test_the_dtype_table_follows_compare_py():
    """Every bool, int, uint, float and complex numpy dtype the GPU holds is in the table, in the
    family compare.py's _errors sends it to, with a C type of its size (complex: of its parts)."""
    sizes = {
        "unsigned short": 2,
        "float": 4,
        "double": 8,
        "signed char": 1,
        "short": 2,
        "int": 4,
        "long long": 8,
        "unsigned char": 1,
        "unsigned int": 4,
        "unsigned long long": 8,
    }
    wanted = [np.bool_, np.float16, np.float32, np.float64, np.complex64, np.complex128]
    wanted += [getattr(np, f"{s}int{b}") for s in ("", "u") for b in (8, 16, 32, 64)]
    assert sorted(DTYPES) == sorted(np.dtype(t).name for t in wanted)
    for name, kind in DTYPES.items():
        dtype = np.dtype(name)
        assert (kind.family == "float") == bool(np.issubdtype(dtype, np.inexact)), name
        lanes = 2 if dtype.kind == "c" else 1
        assert sizes[kind.ctype] * lanes == dtype.itemsize, name
        assert all(f"KT_KERNEL {k}(" in kernel_source([name]) for k in kernel_names(name))


def test_only_the_dtypes_in_use_are_built_once_per_checker():
    ref = np.arange(10, dtype=np.float32)
    checker = Checker(HostDevice(), {"a": ref, "b": ref.astype(np.int32)}, {"a": (0.0, 0.0), "b": (0, 0.0)})
    for _ in range(3):
        checker.compare({"a": ref.copy(), "b": ref.astype(np.int32)})
    checker.set_reference({"a": ref + 1, "b": ref.astype(np.int32)})
    checker.compare({"a": ref.copy(), "b": ref.astype(np.int32)})
    assert HostBackend.builds == 1
    assert sorted(checker._kernels) == ["kt_exact_f32", "kt_fast_f32", "kt_int_i32"]


def test_several_outputs_in_the_reference_order_with_a_missing_one():
    refs = {
        "x": np.linspace(0, 1, 50).astype(np.float32),
        "y": np.arange(7, dtype=np.int64),
        "z": np.ones(3),
        "w": np.full(9, 2.0, np.float16),
        "v": np.zeros(4),
    }
    tol = {"x": (1e-5, 1e-4), "y": (0, 0.0), "z": (1e-9, 1e-7), "w": (1e-2, 1e-2), "v": (0.0, 0.0)}
    checker = Checker(HostDevice(), refs, tol)
    assert checker.where == "device"
    for outs in (
        {"x": refs["x"].copy(), "y": refs["y"][::-1].copy(), "w": refs["w"] - 1, "v": refs["v"] + 1},
        {"x": refs["x"] + np.float32(0.5), "y": refs["y"].copy(), "w": refs["w"].copy(), "v": refs["v"] + 1},
        {"x": refs["x"].copy(), "y": refs["y"].copy(), "z": refs["z"].copy(), "w": refs["w"].copy(), "v": refs["v"]},
    ):
        assert same(checker.compare(outs), compare_all(refs, outs, tol))


def test_another_reference_is_compared_with_and_the_previous_freed():
    a, b = np.zeros(100, np.float64), np.full(100, 3.0)
    checker = Checker(HostDevice(), {"o": a}, {"o": (1e-9, 1e-7)})
    assert checker.compare({"o": a.copy()})[0]["ok"]
    first = checker._refs["o"][1]
    checker.set_reference({"o": b})
    assert same(checker.compare({"o": a.copy()}), [compare("o", b, a, 1e-9, 1e-7)])
    assert checker._refs["o"][1] == first  # the same size: its allocation holds the new reference
    checker.set_reference({"o": np.zeros(5)})
    assert first in HostBackend.released
    checker.close()
    assert not checker._refs


def test_outputs_and_references_that_do_not_fit_twice_are_compared_on_the_host():
    ref = np.arange(1000, dtype=np.float32)
    out = ref.copy()
    out[3] = -1
    checker = Checker(HostDevice(free=2 * 8000 - 1), {"o": ref}, {"o": (1e-5, 1e-4)})
    assert checker.where.startswith("host: outputs and references (0 MB) do not fit twice in the GPU's free memory")
    assert not checker._refs and HostBackend.builds == 0
    assert same(checker.compare({"o": out}), [compare("o", ref, out, 1e-5, 1e-4)])
    assert Checker(HostDevice(free=2 * 8000), {"o": ref}, {"o": (1e-5, 1e-4)}).where == "device"


class _Unknown:
    pass


class _UnknownDevice(HostDevice):
    def __init__(self):
        super().__init__()
        self.dev = _Unknown()


@pytest.mark.parametrize(
    ("setup", "why"),
    [
        ({"dev": _UnknownDevice()}, "the _Unknown backend has no device comparison"),
        ({"like": {"o": np.zeros(20, np.float64)}}, "output o is float64, its reference float32"),
        ({"tol": (float("nan"), 0.0)}, "the tolerances of o are not finite in float32"),
        ({"tol": (np.float64(1e-5), 1e-4)}, "the tolerances of o are not plain numbers"),
        ({"ref": np.arange(20, dtype=np.float16), "tol": (1e5, 0.0)}, "the tolerances of o are not finite in float16"),
        ({"ref": np.arange(20, dtype=np.longdouble)}, "o is float128, not compared on the device"),
        ({"ref": np.arange(20, dtype=np.int64), "tol": (2**70, 0.0)}, "the atol of o is past int64"),
        ({"as_list": True}, "output o is a list, not a plain device buffer"),
    ],
)
def test_what_the_device_cannot_mirror_is_compared_on_the_host(setup, why):
    ref = setup.get("ref", np.arange(20, dtype=np.float32))
    like = setup.get("like", {})
    out = ref.astype(like.get("o", ref).dtype)
    out[5] = 100
    tol = setup.get("tol", (1e-5, 1e-4))
    checker = Checker(setup.get("dev", HostDevice()), {"o": ref}, {"o": tol}, like=like)
    got = checker.compare({"o": out.tolist() if setup.get("as_list") else out})
    assert checker.where == f"host: {why}"
    assert same(got, [compare("o", ref, out, *tol)])


def test_a_kernel_that_does_not_build_leaves_the_comparison_to_the_host(monkeypatch):
    def fail(self, source, names):
        raise RuntimeError("nvrtc: error: boom\nmore")

    monkeypatch.setattr(HostBackend, "build", fail)
    ref = np.ones(10)
    checker = Checker(HostDevice(), {"o": ref}, {"o": (0.0, 0.0)})
    assert checker.where == "host: the comparison kernel did not build: nvrtc: error: boom"
    assert same(checker.compare({"o": ref * 2}), [compare("o", ref, ref * 2, 0.0, 0.0)])


def test_an_output_of_another_shape_or_none_is_missing_as_on_the_host():
    ref = np.zeros((4, 5), np.float32)
    checker = Checker(HostDevice(), {"o": ref, "p": ref}, {"o": (0.0, 0.0), "p": (0.0, 0.0)}, like={"o": np.zeros(20)})
    got = checker.compare({"o": np.zeros(20, np.float32)})
    assert same(got, [compare("o", ref, None, 0.0, 0.0), compare("p", ref, None, 0.0, 0.0)])


def test_output_reset_restores_the_pristine_contents():
    pristine = np.arange(64, dtype=np.float32)
    gpu_args = [np.ones(8, np.float32), pristine.copy(), np.int32(3), np.full(5, 7, np.int8)]
    reset = OutputReset(HostDevice(), gpu_args, {"c": 1, "d": 3})
    gpu_args[1][:] = -1  # the kernel under test wrote its outputs
    gpu_args[3][2] = 0
    reset.reset()
    assert np.array_equal(gpu_args[1], pristine) and np.array_equal(gpu_args[3], np.full(5, 7, np.int8))
    assert np.array_equal(gpu_args[0], np.ones(8, np.float32))
    reset.close()
    assert len(HostBackend.released) == 2


def test_output_reset_refuses_what_it_cannot_copy_on_the_device():
    with pytest.raises(ValueError, match="output c is a list, not a plain device buffer"):
        OutputReset(HostDevice(), [[1.0, 2.0]], {"c": 0})
    with pytest.raises(ValueError, match="the _Unknown backend has no device comparison"):
        OutputReset(_UnknownDevice(), [np.zeros(3)], {"c": 0})


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_a_complex_output_is_compared_part_by_part_as_compare_does(dtype):
    """compare.py compares a complex output part by part (an index names its element): a wrong
    imaginary part, or a fraction the old integer cast dropped, is caught on the device with
    compare.py's verdict, key for key."""
    ref = (np.arange(50) + 1j * np.arange(50)).astype(dtype)
    out = ref.copy()
    out[7] += 0.5j  # the real part, truncated to an integer as the old cast did, is still right
    out[9] += 0.25
    out[11] = complex(11, np.nan)
    tol = {"z": (1e-3, 0.0), "f": (0.0, 0.0)}
    floats = np.arange(50, dtype=np.float32)
    checker = Checker(HostDevice(), {"z": ref, "f": floats}, tol)
    try:
        assert checker.where == "device"
        got = checker.compare({"z": out, "f": floats.copy()})
    finally:
        checker.close()
    want = compare_all({"z": ref, "f": floats}, {"z": out, "f": floats}, tol)
    assert same(got, want)
    assert not got[0]["ok"] and got[0]["first_bad"] == 7 and got[0]["mismatches"] == 3
    assert got[0]["max_abs_err"] == 0.5 and got[1]["ok"]


def test_an_output_reset_that_cannot_allocate_frees_what_it_made(monkeypatch):
    made = []
    alloc = HostBackend.alloc

    def second_fails(self, nbytes):
        if made:
            raise MemoryError("out of memory")
        made.append(alloc(self, nbytes))
        return made[-1]

    monkeypatch.setattr(HostBackend, "alloc", second_fails)
    with pytest.raises(MemoryError):
        OutputReset(HostDevice(), [np.zeros(4), np.zeros(8)], {"c": 0, "d": 1})
    assert HostBackend.released == [made[0][1]]


def test_cupys_comparison_kernels_are_compiled_without_flushing_subnormals(monkeypatch):
    """cupy's RawModule compiles with -ftz=true, under which a subnormal reference compared as 0 (seen on
    an H100, session 20: 10 of 192 float32 verdicts differed from compare.py's). The comparison kernels
    go through cupy's NVRTC with the architecture alone, once per source and GPU, loaded as a module."""
    import sys
    from types import ModuleType, SimpleNamespace

    from kt_tui.gpu.device import access, loaders

    asked: list[list[str]] = []
    nvrtc = ModuleType("cupy_backends.cuda.libs.nvrtc")
    nvrtc.NVRTCError = RuntimeError  # type: ignore[attr-defined]
    nvrtc.getSupportedArchs = lambda: (75, 80, 90)  # type: ignore[attr-defined]
    nvrtc.createProgram = lambda src, name, headers, names: src  # type: ignore[attr-defined]
    nvrtc.compileProgram = lambda prog, options: asked.append(list(options))  # type: ignore[attr-defined]
    nvrtc.getCUBIN = lambda prog: b"cubin of " + prog.encode()[:8]  # type: ignore[attr-defined]
    nvrtc.destroyProgram = lambda prog: None  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "cupy_backends.cuda.libs.nvrtc", nvrtc)
    loaded: list[bytes] = []

    class Module:
        def __init__(self, binary: bytes):
            loaded.append(binary)

        def get_function(self, name: str) -> str:
            return f"fn {name}"

    monkeypatch.setattr(loaders, "Module", Module)
    monkeypatch.setattr(access, "_CUBINS", {})
    backend = access._Cupy.__new__(access._Cupy)
    backend.modules = []
    backend.cp = SimpleNamespace(cuda=SimpleNamespace(Device=lambda: SimpleNamespace(compute_capability="90")))
    source, names = kernel_source(["float32"]), list(kernel_names("float32"))
    for _ in range(2):
        assert backend.build(source, names) == {n: f"fn {n}" for n in names}
    assert asked == [["--gpu-architecture=sm_90"]]  # compiled once, without -ftz=true
    assert len(loaded) == 2 and loaded[0].startswith(b"cubin of ")
