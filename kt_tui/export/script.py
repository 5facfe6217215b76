"""tune_<kernel>.py: a standalone kernel_tuner script that reproduces a session's final tuning.

Every value from the store goes in through repr() of plain Python data, never as code text."""

from __future__ import annotations

from pathlib import Path
from pprint import pformat

from ..files import write_output
from ..gpu.nvrtc import nvrtc_math
from ..kernel.expr import parse
from ..kernel.text import compile_options, instantiations_wrapped
from .bundle import Bundle
from .inputs import not_made

TEMPLATE = '''\
"""Reproduce the final tuning of kt-tui session {sid} ({kernel}) with kernel_tuner alone.

Needs kernel_tuner, numpy and one CUDA backend for kernel_tuner (cupy, pycuda or cuda-python).
Inputs come from {inputs} beside this file (the same seeds kt-tui used). The answer is the
original kernel's outputs: read from that file when kt-tui stored them, else computed here by
running the original kernel once with its default parameters.
Run: python {script} [--backend pycuda|cupy|nvcuda]   (writes {cachefile} and {t4file} beside it)
"""

import sys
from pathlib import Path

import numpy as np
from kernel_tuner import run_kernel, tune_kernel
from kernel_tuner.file_utils import store_output_file

HERE = Path(__file__).resolve().parent
KERNEL_NAME = {kernel_name}
PROBLEM_SIZE = {problem_size}
TUNE_PARAMS = {tune_params}
RESTRICTIONS = {restrictions}
GRID_DIV_X = {grid_div_x}
GRID_DIV_Y = {grid_div_y}
GRID_DIV_Z = {grid_div_z}
BLOCK_SIZE_NAMES = {block_size_names}
COMPILER_OPTIONS = {compiler_options}
# math.h's constants, which nvcc gives every kernel and NVRTC (the cupy and nvcuda backends) does not
NVRTC_OPTIONS = {nvrtc_options}
ITERATIONS = {iterations}
# per output argument (by position): (atol, rtol)
TOLERANCES = {tolerances}
BEST_IN_SESSION = {best}
SESSION_BACKEND = {backend}

# arguments not in the inputs file: made by the user's Python, which kt-tui's export does not run
NOT_IN_INPUTS = {not_made}
N_ARGS = {n_args}

ORIGINAL_PARAMS = {original_params}
ORIGINAL_GRID_DIV = {original_grid_div}
ORIGINAL_BLOCK_SIZE_NAMES = {original_block_size_names}

KERNEL_SOURCE = {source}

ORIGINAL_SOURCE = {original_source}


def pick_lang():
    """The session's backend when it is installed (timings compare only on the same backend),
    else another; `--backend NAME` picks one."""
    modules = {{"pycuda": "pycuda.driver", "cupy": "cupy", "nvcuda": "cuda.bindings"}}
    asked = sys.argv[sys.argv.index("--backend") + 1] if "--backend" in sys.argv[:-1] else None
    for lang in [asked] if asked else [SESSION_BACKEND, *(b for b in modules if b != SESSION_BACKEND)]:
        try:
            __import__(modules[lang])
            return lang
        except (ImportError, KeyError):
            if asked:
                raise SystemExit("--backend %s: not installed (one of %s)" % (asked, ", ".join(modules)))
    raise SystemExit("no CUDA backend for kernel_tuner: install pycuda, cupy or cuda-python")


def as_cuda(backend):
    """kernel_tuner prepares a kernel as CUDA (constexpr loop_unroll_factor_*, template wrapping)
    only under lang "CUDA"; under lang "pycuda" those kernels do not compile (kernel_tuner 1.5.0).
    So pass "CUDA" and make kernel_tuner's own CUDA pick return the chosen backend."""
    import importlib
    import kernel_tuner.core as core
    module, name = {{"pycuda": ("kernel_tuner.backends.pycuda", "PyCudaFunctions"),
                     "cupy": ("kernel_tuner.backends.cupy", "CupyFunctions"),
                     "nvcuda": ("kernel_tuner.backends.nvcuda", "CudaFunctions")}}[backend]
    chosen = getattr(importlib.import_module(module), name)
    core._select_default_cuda_backend = lambda: chosen
    return "CUDA"


def load_inputs():
    if NOT_IN_INPUTS:
        raise SystemExit("not in %s: %s; make them and add them as arg<N>" % ({inputs}, "; ".join(NOT_IN_INPUTS.values())))
    with np.load(HERE / {inputs}) as z:
        args = [z["arg%d" % i] for i in range(N_ARGS)]
        args = [a[()] if a.ndim == 0 else a for a in args]
        stored = {{int(k[len("answer"):]): z[k] for k in z.files if k.startswith("answer")}}
    return args, stored


def reference(args, stored, lang, options):
    if stored:
        return [stored.get(i) for i in range(len(args))]
    gx, gy, gz = ORIGINAL_GRID_DIV
    outputs = run_kernel(KERNEL_NAME, ORIGINAL_SOURCE, PROBLEM_SIZE, [np.copy(a) for a in args],
                         ORIGINAL_PARAMS, grid_div_x=gx, grid_div_y=gy, grid_div_z=gz, lang=lang,
                         block_size_names=ORIGINAL_BLOCK_SIZE_NAMES, compiler_options=options)
    return [outputs[i] if i in TOLERANCES else None for i in range(len(args))]


def verify(answer, result_host, atol=None):
    for i, (expected, got) in enumerate(zip(answer, result_host)):
        if expected is None:
            continue
        a, r = TOLERANCES[i]
        if not np.allclose(np.asarray(got).ravel(), np.asarray(expected).ravel(), atol=a, rtol=r, equal_nan=False):
            return False
    return True


def main():
    backend = pick_lang()
    lang = as_cuda(backend)
    args, stored = load_inputs()
    if backend == "cupy":  # cupy passes no structured scalar: a 16-byte vector (float4, double2) by value
        args = [np.frombuffer(a.tobytes(), np.complex128)[0]  # goes as a complex128 of the same bytes
                if isinstance(a, np.void) and a.dtype.itemsize == 16 else a for a in args]
    options = COMPILER_OPTIONS + (NVRTC_OPTIONS if backend in ("cupy", "nvcuda") else [])
    answer = reference(args, stored, lang, options)
    results, env = tune_kernel(KERNEL_NAME, KERNEL_SOURCE, PROBLEM_SIZE, args, TUNE_PARAMS,
                               grid_div_x=GRID_DIV_X, grid_div_y=GRID_DIV_Y, grid_div_z=GRID_DIV_Z,
                               block_size_names=BLOCK_SIZE_NAMES, restrictions=RESTRICTIONS or None,
                               compiler_options=options or None, iterations=ITERATIONS,
                               answer=answer, verify=verify, lang=lang, strategy="brute_force",
                               cache=str(HERE / {cachefile}))
    store_output_file(str(HERE / {t4file}), results, TUNE_PARAMS)
    ok = [r for r in results if isinstance(r.get("time"), (int, float))]
    if not ok:
        raise SystemExit("no configuration ran")
    best = min(ok, key=lambda r: r["time"])
    print("best: %.4f ms with %s on %s (%s)" % (best["time"], {{k: best[k] for k in TUNE_PARAMS}}, env.get("device_name"), backend))
    print("kt-tui's best in the session: %.4f ms with %s" % (BEST_IN_SESSION["time_ms"], BEST_IN_SESSION["params"]))


if __name__ == "__main__":
    main()
'''


def _py(value) -> str:
    return pformat(value, width=100, sort_dicts=False)


def _parsed(texts: list | None) -> list | None:
    """Expressions kernel_tuner will eval, each as kt-tui's whitelist parser accepted it."""
    return None if texts is None else [parse(t, "exported expression").text for t in texts]


def _size(values: list[int]):
    return values[0] if len(values) == 1 else tuple(values)


def script_text(b: Bundle, inputs_name: str) -> str:
    spec, orig = b.spec, b.original_spec
    outputs = {i: list(a.tolerance()) for i, a in enumerate(spec.args) if a.output}
    return TEMPLATE.format(
        sid=_safe_doc(b.sid),
        kernel=_safe_doc(b.name),
        inputs=repr(inputs_name),
        script=_safe_doc(f"tune_{b.stem}.py"),
        cachefile=repr(f"tune_{b.stem}.cache.json"),
        t4file=repr(f"tune_{b.stem}.t4.json"),
        kernel_name=repr(spec.kernel),
        problem_size=_py(_size(spec.problem_size_values())),
        tune_params=_py(spec.tune_params),
        restrictions=_py(_parsed(spec.restrictions)),
        grid_div_x=_py(_parsed(spec.grid_div_x)),
        grid_div_y=_py(_parsed(spec.grid_div_y)),
        grid_div_z=_py(_parsed(spec.grid_div_z)),
        block_size_names=_py(spec.block_size_names),
        compiler_options=_py(compile_options(spec.compiler_options)),
        nvrtc_options=_py(nvrtc_math(compile_options(spec.compiler_options))),
        iterations=repr(int(spec.iterations)),
        tolerances=_py(outputs),
        best=_py({"time_ms": b.best.time_ms, "params": dict(b.best.params)}),
        backend=repr(
            b.session.get("backend") if b.session.get("backend") in ("pycuda", "cupy", "nvcuda") else "pycuda"
        ),
        not_made=_py(not_made(spec)),
        n_args=repr(len(spec.args)),
        original_params=_py(orig.baseline_params()),
        original_grid_div=_py(tuple(_parsed(g) for g in (orig.grid_div_x, orig.grid_div_y, orig.grid_div_z))),
        original_block_size_names=_py(orig.block_size_names),
        source=repr(instantiations_wrapped(b.version["source"], spec.kernel)),  # as kt-tui ran it (kernel/text.py)
        original_source=repr(instantiations_wrapped(b.original["source"], orig.kernel)),
    )


def _safe_doc(text: str) -> str:
    """Text for the docstring: no quotes or backslashes that could end it."""
    return "".join(c for c in str(text) if c.isalnum() or c in "._-+ ")


def write_script(b: Bundle, path: Path, inputs_name: str) -> Path:
    write_output(path, script_text(b, inputs_name))
    return path
