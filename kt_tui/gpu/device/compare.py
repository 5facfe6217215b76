"""Outputs compared with their references on the GPU: the verdicts of kt_tui/compare.py, without
copying the outputs back.

A Checker keeps one loaded job's references on the device and compares each configuration's output
buffers there with a small CUDA kernel per dtype (their source: compare.cu beside this file),
compiled once with the backend in use (pycuda's SourceModule, NVRTC for cuda-python, cupy's NVRTC
without the -ftz=true of its RawModule, under which a subnormal reference compares as 0). Only the
counts, the largest errors and the first bad index come back, and for a wrong output the few values
around that index; the verdict is the one `kt_tui.compare.compare` gives for the same arrays, key for
key. Where the device cannot (outputs and references do not fit twice in the free memory, a dtype or
buffer it does not know, a tolerance it cannot mirror), that output is copied back and compared on
the host, and `where` says why. An OutputReset keeps a pristine device copy of each output and restores it before a run."""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from string import Template
from typing import Any

import numpy as np

from ...compare import EXCERPT, KEPT_MAX, Verdict, compare, value_text
from .access import BACKENDS, BLOCK, Backend, backend_for  # noqa: F401 - BACKENDS: the tests add a host backend there

__all__ = ["BACKENDS", "DTYPES", "Checker", "OutputReset", "kernel_source"]

MAX_BLOCKS = 8192
SLOT = 4  # words of one output's result: bad count, first bad index, max |error|, max relative error
NO_INDEX = (1 << 64) - 1


@dataclass(frozen=True)
class Kind:
    """How the kernel reads one numpy dtype: its C element type, its family, and for the integer
    family the expression giving element i of p as the host's `astype(np.int64)` does."""

    suffix: str
    ctype: str
    family: str  # "float": compared as compare._errors's float path; "int": its exact integer path
    load: str = ""
    part: str = ""  # complex: the suffix of its parts' float type (each element is two of them)


# compare.py sends every integer dtype through `astype(np.int64)` (bool as 0/1), and compares a complex
# output part by part as floats, an element bad where either part is
DTYPES: dict[str, Kind] = {
    "float16": Kind("f16", "unsigned short", "float"),
    "float32": Kind("f32", "float", "float"),
    "float64": Kind("f64", "double", "float"),
    "int8": Kind("i8", "signed char", "int", "(kt_i64)p[i]"),
    "int16": Kind("i16", "short", "int", "(kt_i64)p[i]"),
    "int32": Kind("i32", "int", "int", "(kt_i64)p[i]"),
    "int64": Kind("i64", "long long", "int", "(kt_i64)p[i]"),
    "uint8": Kind("u8", "unsigned char", "int", "(kt_i64)p[i]"),
    "uint16": Kind("u16", "unsigned short", "int", "(kt_i64)p[i]"),
    "uint32": Kind("u32", "unsigned int", "int", "(kt_i64)p[i]"),
    "uint64": Kind("u64", "unsigned long long", "int", "(kt_i64)p[i]"),
    "bool": Kind("b8", "unsigned char", "int", "(kt_i64)(p[i] != 0)"),
    "complex64": Kind("c64", "float", "float", part="f32"),
    "complex128": Kind("c128", "double", "float", part="f64"),
}


def _sections(text: str) -> dict[str, str]:
    """compare.cu's sections by name: each `//@name` line starts one (the text before the first is
    compare.cu's own note)."""
    parts = re.split(r"^//@(\w+)\n", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


_CU = _sections(resources.files(__package__).joinpath("compare.cu").read_text(encoding="utf-8"))
_HEAD = _CU["head"]
_FLOAT, _INT, _COMPLEX = (Template(_CU[name]) for name in ("float", "int", "complex"))
_WIDE = {"f16": "(double)kt_h2f", "f32": "(double)", "f64": ""}


def kernel_names(dtype: str) -> tuple[str, ...]:
    kind = DTYPES[dtype]
    if kind.family == "float":
        return (f"kt_fast_{kind.suffix}", f"kt_exact_{kind.suffix}")
    return (f"kt_int_{kind.suffix}",)


def kernel_source(dtypes: list[str] | None = None) -> str:
    """The comparison kernels of these dtypes (all of DTYPES by default), for nvcc, NVRTC, or a host
    C++ compiler (the CPU tests)."""
    parts = [_HEAD]
    for name in sorted(dtypes if dtypes is not None else DTYPES):
        kind = DTYPES[name]
        if kind.part:
            parts.append(_COMPLEX.substitute(s=kind.suffix, t=kind.ctype, p=kind.part, wide=_WIDE[kind.part]))
        elif kind.family == "float":
            parts.append(_FLOAT.substitute(s=kind.suffix, t=kind.ctype, wide=_WIDE[kind.suffix]))
        else:
            parts.append(_INT.substitute(s=kind.suffix, t=kind.ctype, load=kind.load))
    return "".join(parts)


def _mb(nbytes: int) -> str:
    return f"{nbytes / 2**20:.0f} MB"


def _is_number(x: object) -> bool:
    """A Python int or float (bool included): what compare.py's numpy treats as a weak scalar."""
    return type(x) in (int, float, bool)


def _part(dtype: np.dtype) -> np.dtype:
    """The float type of a complex dtype's parts; any other dtype itself."""
    return np.empty(0, dtype).real.dtype


def _in_dtype(x: float, dtype: np.dtype) -> float:
    """x as numpy casts a Python number to the array's float type in `atol + rtol * |ref|`."""
    with warnings.catch_warnings(), np.errstate(over="ignore", invalid="ignore"):
        warnings.simplefilter("ignore")
        return float(np.array(x).astype(dtype))


class Checker:
    """The references of one loaded job, kept on the GPU; outputs compared there, only verdicts come back.

    `like`: output name -> the host argument kernel_tuner allocated that output from (its dtype and
    shape are the output's, as kernel_tuner copies it back with np.zeros_like); by default the
    reference's. `where` is "device", or "host: <why>" when some output is compared on the host."""

    def __init__(
        self,
        dev: Any,
        reference: Mapping[str, np.ndarray],
        tolerances: Mapping[str, tuple[float, float]],
        like: Mapping[str, np.ndarray] | None = None,
    ):
        self.dev = dev
        self.tolerances = dict(tolerances)
        self.like = dict(like or {})
        self.where = "device"
        self.backend, why = backend_for(dev)
        self.unavailable = why  # the backend cannot compare on the device at all
        self.reference: dict[str, np.ndarray] = {}
        self.on_host: dict[str, str] = {}  # outputs compared on the host, and why
        self._refs: dict[str, tuple[object, int, int]] = {}  # name -> (handle, pointer, bytes)
        self._acc: tuple[object, int, int] | None = None  # (handle, pointer, slots)
        self._kernels: dict[str, object] = {}
        self._built: set[str] = set()
        self.set_reference(reference)

    def _host_reason(self, name: str, ref: object) -> str | None:
        if not isinstance(ref, np.ndarray):
            return f"the reference of {name} is not an array"
        kind = DTYPES.get(ref.dtype.name)
        if kind is None:
            return f"{name} is {ref.dtype}, not compared on the device"
        like = self.like.get(name, ref)
        if like.dtype != ref.dtype:
            return f"output {name} is {like.dtype}, its reference {ref.dtype}"
        if not like.flags.c_contiguous:
            return f"output {name} is not C-contiguous"
        atol, rtol = self.tolerances[name]
        if not (_is_number(atol) and _is_number(rtol)):
            return f"the tolerances of {name} are not plain numbers"
        if kind.family == "float":
            rounded = (_in_dtype(atol, _part(ref.dtype)), _in_dtype(rtol, _part(ref.dtype)))
            if not all(np.isfinite([atol, rtol, *rounded])):
                return f"the tolerances of {name} are not finite in {ref.dtype}"
        elif type(atol) is not float and not -(2**63) <= atol < 2**63:
            return f"the atol of {name} is past int64"
        return None

    def set_reference(self, reference: Mapping[str, np.ndarray]) -> None:
        """Another reference (one per result_params value): copied to the device, the previous freed."""
        self.reference = dict(reference)
        kept, self._refs = self._refs, {}  # an allocation of the same size is used again
        self.on_host = {}
        if self.backend is None:
            self.on_host = dict.fromkeys(self.reference, self.unavailable)
            self._say()
            return
        old = {size: (handle, ptr) for handle, ptr, size in kept.values()}
        if len(old) < len(kept):  # two of the same size: simpler to start afresh
            old = {}
            for handle, _, _ in kept.values():
                self.backend.release(handle)
        for name, ref in self.reference.items():
            why = self._host_reason(name, ref)
            if why is not None:
                self.on_host[name] = why
        ours = [n for n in self.reference if n not in self.on_host]
        refs = sum(self.reference[n].nbytes for n in ours)
        outs = sum(self.like.get(n, self.reference[n]).nbytes for n in ours)
        free = self.backend.free_bytes() + sum(size for _, _, size in kept.values()) if ours else 0
        if ours and 2 * (refs + outs) > free:
            why = f"outputs and references ({_mb(refs + outs)}) do not fit twice in the GPU's free memory ({_mb(free)})"
            self.on_host.update(dict.fromkeys(ours, why))
            ours = []
        if ours:
            try:
                self._build({self.reference[n].dtype.name for n in ours})
            except Exception as e:  # a compiler or driver failure: the host compares
                first = (str(e).strip().splitlines() or [type(e).__name__])[0]
                self.on_host.update(dict.fromkeys(ours, f"the comparison kernel did not build: {first}"))
                ours = []
        for name in ours:
            ref = np.ascontiguousarray(self.reference[name])
            handle, ptr = old.pop(ref.nbytes) if ref.nbytes in old else self.backend.alloc(ref.nbytes)
            self._refs[name] = (handle, ptr, ref.nbytes)
            if ref.nbytes:
                self.backend.htod(ptr, ref)
        for handle, _ in old.values():
            self.backend.release(handle)
        if ours and (self._acc is None or self._acc[2] < len(self.reference)):
            if self._acc is not None:
                self.backend.release(self._acc[0])
            handle, ptr = self.backend.alloc(8 * SLOT * len(self.reference))
            self._acc = (handle, ptr, len(self.reference))
        self._say()

    def _say(self) -> None:
        reasons = list(dict.fromkeys(self.on_host.values()))
        self.where = "host: " + "; ".join(reasons) if reasons else "device"

    def _build(self, dtypes: set[str]) -> None:
        missing = sorted(dtypes - self._built)
        if not missing or self.backend is None:
            return
        want = sorted(self._built | dtypes)
        names = [k for d in want for k in kernel_names(d)]
        self._kernels = self.backend.build(kernel_source(want), names)
        self._built = set(want)

    def _release_refs(self) -> None:
        if self.backend is not None:
            for handle, _, _ in self._refs.values():
                self.backend.release(handle)
        self._refs = {}

    def _host_compare(self, name: str, buf: object) -> Verdict:
        ref = self.reference[name]
        out = np.zeros_like(self.like.get(name, ref))
        self.dev.memcpy_dtoh(out, buf)
        return compare(name, ref, out, *self.tolerances[name])

    def compare(self, outputs: Mapping[str, object]) -> list[Verdict]:
        """Each reference's verdict, in the reference's order, as compare.compare_all gives it for
        these output buffers' contents copied back."""
        verdicts: dict[str, Verdict] = {}
        slots: dict[str, tuple[int, int]] = {}  # name -> (slot, output pointer)
        for name, ref in self.reference.items():
            atol, rtol = self.tolerances[name]
            buf = outputs.get(name)
            like = self.like.get(name, ref)
            if buf is None or like.shape != ref.shape:
                verdicts[name] = compare(name, ref, None, atol, rtol)
                continue
            ptr = self.backend.buffer_ptr(buf) if name in self._refs and self.backend is not None else None
            if ptr is None:
                if name in self._refs:
                    self.on_host[name] = f"output {name} is a {type(buf).__name__}, not a plain device buffer"
                    self._say()
                verdicts[name] = self._host_compare(name, buf)
            elif ref.size == 0:
                verdicts[name] = self._verdict(name, 0, 0, 0.0, 0.0, ptr)
            else:
                slots[name] = (len(slots), ptr)
        if slots:
            self._run(slots, verdicts)
        return [verdicts[name] for name in self.reference]

    def _run(self, slots: dict[str, tuple[int, int]], verdicts: dict[str, Verdict]) -> None:
        assert self.backend is not None and self._acc is not None
        first = self._pass(slots, "fast")
        floats = [n for n in slots if DTYPES[self.reference[n].dtype.name].family == "float" and first[n][0]]
        exact = {n: (i, slots[n][1]) for i, n in enumerate(floats)}  # slots numbered afresh
        again = self._pass(exact, "exact") if exact else {}
        for name, (_, ptr) in slots.items():
            count, index, m1, m2 = again.get(name, first[name])
            if DTYPES[self.reference[name].dtype.name].family == "int":
                signed = m1 ^ (1 << 63)
                max_abs, max_rel = float(signed - (1 << 64) if signed >= 1 << 63 else signed), 0.0
            else:
                max_abs, max_rel = (float(x) for x in np.array([m1, m2], np.uint64).view(np.float64))
                if name not in again:
                    count = 0  # every element within its bound and no infinite reference: all close
            verdicts[name] = self._verdict(name, count, index, max_abs, max_rel, ptr)

    def _pass(self, slots: dict[str, tuple[int, int]], which: str) -> dict[str, tuple[int, int, int, int]]:
        """One launch per output into its slot of the result words, then one copy back of them all."""
        assert self.backend is not None and self._acc is not None
        _, acc, _ = self._acc
        words = np.zeros(SLOT * len(slots), np.uint64)
        words[1::SLOT] = NO_INDEX
        self.backend.htod(acc, words)
        for name, (slot, ptr) in slots.items():
            ref = self.reference[name]
            kind = DTYPES[ref.dtype.name]
            atol, rtol = self.tolerances[name]
            n = int(ref.size)
            blocks = min(-(-n // BLOCK), MAX_BLOCKS)
            if kind.family == "int":
                whole = type(atol) is not float  # numpy compares int64 with a Python int exactly
                fn = self._kernels[f"kt_int_{kind.suffix}"]
                args = (float(atol), float(whole), int(atol) if whole else 0)
            elif which == "fast":
                lanes = 2 if kind.part else 1  # compare.py keeps the bounds of the parts' array
                kept = int(lanes * n <= KEPT_MAX and not ref.flags.writeable)
                fn = self._kernels[f"kt_fast_{kind.suffix}"]
                args = (_in_dtype(atol, _part(ref.dtype)), _in_dtype(rtol, _part(ref.dtype)), kept)
            else:
                fn, args = self._kernels[f"kt_exact_{kind.suffix}"], (float(atol), float(rtol), 0)
            self.backend.launch(
                fn, blocks, ptr, self._refs[name][1], n, args[0], args[1], args[2], acc + 8 * SLOT * slot
            )
        self.backend.dtoh(words, acc)
        got = [int(w) for w in words]
        return {name: tuple(got[SLOT * s : SLOT * s + SLOT]) for name, (s, _) in slots.items()}  # type: ignore[misc]

    def _verdict(self, name: str, count: int, index: int, max_abs: float, max_rel: float, ptr: int) -> Verdict:
        ref = self.reference[name]
        atol, rtol = self.tolerances[name]
        verdict: Verdict = {
            "output": name,
            "ok": count == 0,
            "max_abs_err": max_abs,
            "max_rel_err": max_rel,
            "mismatches": count,
            "first_bad": index if count else None,
            "atol": atol,
            "rtol": rtol,
            "excerpt": [],
        }
        if count:
            assert self.backend is not None
            lo, hi = max(index - EXCERPT, 0), min(index + EXCERPT + 1, ref.size)
            got = np.empty(hi - lo, ref.dtype)
            self.backend.dtoh(got, ptr + lo * ref.itemsize)
            verdict["reason"] = (
                f"{name}[{index}] = {value_text(got[index - lo])}, expected {value_text(ref.flat[index])}"
            )
            verdict["excerpt"] = [[j, value_text(got[j - lo]), value_text(ref.flat[j])] for j in range(lo, hi)]
        return verdict

    def close(self) -> None:
        self._release_refs()
        if self._acc is not None and self.backend is not None:
            self.backend.release(self._acc[0])
        self._acc = None
        self._kernels = {}
        self._built = set()


class OutputReset:
    """Keeps a pristine device copy of each output's initial contents; reset() copies it back
    device-to-device before each configuration. `nbytes`: each output's size in bytes (by default
    asked of the backend: the allocation's size)."""

    def __init__(self, dev: Any, gpu_args: list, out_index: Mapping[str, int], nbytes: Mapping[str, int] | None = None):
        self.backend, why = backend_for(dev)
        if self.backend is None:
            raise ValueError(f"outputs cannot be reset on the device: {why}")
        self._copies: list[tuple[object, int, int, int]] = []  # (handle, pristine copy, output, bytes)
        for name, i in out_index.items():
            ptr = self.backend.buffer_ptr(gpu_args[i])
            if ptr is None:
                self.close()
                raise ValueError(f"output {name} is a {type(gpu_args[i]).__name__}, not a plain device buffer")
            size = (nbytes or {}).get(name)
            size = self.backend.buffer_nbytes(gpu_args[i]) if size is None else size
            try:
                handle, copy = self.backend.alloc(size)
            except Exception:
                self.close()  # the copies made so far
                raise
            if size:
                self.backend.dtod(copy, ptr, size)
            self._copies.append((handle, copy, ptr, size))

    def reset(self) -> None:
        assert self.backend is not None
        for _, copy, ptr, size in self._copies:
            if size:
                self.backend.dtod(ptr, copy, size)

    def close(self) -> None:
        if self.backend is not None:
            for handle, *_ in self._copies:
                self.backend.release(handle)
        self._copies = []
