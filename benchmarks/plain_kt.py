"""One run of plain kernel_tuner on a kt-tui kernel and spec, in its own process, as a user would
write it: inputs generated, the original configuration run for `answer`, then `tune_kernel` brute
force over the spec's space. With --sim CACHE, kernel_tuner's own simulation mode on that cache.

usage: python benchmarks/plain_kt.py KERNEL.cu (--backend pycuda|nvcuda|cupy [--answer] | --sim CACHE | --dry-run)
prints one JSON line: {"configs": N, "seconds": wall inside the process, "inputs_s": making the inputs}
--dry-run (no GPU): only the inputs and kernel_tuner's arguments, as a GPU run would make them;
"configs" is then the size of the spec's space after its restrictions.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

T0 = time.perf_counter()
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
BACKENDS = ("nvcuda", "cupy", "pycuda")


class FirstN:
    """kernel_tuner's brute force, stopped after n configurations (a strategy object, as kernel_tuner allows)."""

    def __init__(self, n: int):
        self.n = n

    def tune(self, searchspace, runner, tuning_options):
        return runner.run(searchspace.sorted_list()[: self.n], tuning_options)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("kernel")
    ap.add_argument("--backend", choices=sorted(BACKENDS))
    ap.add_argument("--answer", action="store_true", help="verify every configuration against the original's outputs")
    ap.add_argument("--sim", help="a recorded kernel_tuner cachefile: simulation mode")
    ap.add_argument("--max-configs", type=int, help="only the first N configurations in brute-force order")
    ap.add_argument("--dry-run", action="store_true", help="make the inputs and arguments only (no GPU)")
    a = ap.parse_args()
    import numpy as np
    from kernel_tuner import run_kernel, tune_kernel

    from kt_tui.front.session import load_kernel_spec, read_kernel_file
    from kt_tui.gpu.device.lang import cuda_lang  # lang "CUDA" on the chosen backend, as kt-tui runs it
    from kt_tui.kernel.inputs import make_args

    kf = read_kernel_file(a.kernel)
    _, spec = load_kernel_spec(kf, None, None)
    ps = spec.problem_size_values()
    ps = ps if len(ps) > 1 else ps[0]
    common = dict(
        grid_div_x=spec.grid_div_x,
        grid_div_y=spec.grid_div_y,
        grid_div_z=spec.grid_div_z,
        block_size_names=spec.block_size_names,
        quiet=True,
    )
    t_inputs = time.perf_counter()
    args = make_args(spec)
    inputs_s = time.perf_counter() - t_inputs
    kwargs = dict(
        restrictions=spec.restrictions or None,
        iterations=spec.iterations,
        compiler_options=spec.compiler_options or None,
    )
    if a.dry_run:
        names = list(spec.tune_params)
        space = sum(spec.allows(dict(zip(names, v))) for v in itertools.product(*spec.tune_params.values()))
        arrays = sum(x.nbytes for x in args if isinstance(x, np.ndarray))
        info = {"configs": space, "seconds": time.perf_counter() - T0, "inputs_s": inputs_s, "bytes": arrays}
        print(json.dumps({**info, "problem_size": ps, "outputs": [x.name for x in spec.args if x.output]}))
        return
    if a.sim:
        kwargs.update(lang="CUDA", simulation_mode=True, cache=a.sim)
    else:
        kwargs.update(lang="CUDA")
        if a.answer:
            with cuda_lang(a.backend):
                outs = run_kernel(
                    spec.kernel,
                    kf.source,
                    ps,
                    args,
                    spec.baseline_params(),
                    lang="CUDA",
                    compiler_options=spec.compiler_options or None,
                    **common,
                )
            tols = [x.tolerance() if x.output else None for x in spec.args]

            def verify(answer, result_host, atol=None):  # compares like kt-tui, never aborts the run
                all(
                    w is None or np.allclose(g, w, atol=t[0], rtol=t[1], equal_nan=True)
                    for w, g, t in zip(answer, result_host, tols)
                )
                return True

            kwargs.update(answer=[o if x.output else None for o, x in zip(outs, spec.args)], verify=verify)
    if a.max_configs:
        kwargs["strategy"] = FirstN(a.max_configs)
    with cuda_lang("sim" if a.sim else a.backend):
        results, _ = tune_kernel(
            spec.kernel, kf.source, ps, args, {k: list(v) for k, v in spec.tune_params.items()}, **kwargs, **common
        )
    print(json.dumps({"configs": len(results), "seconds": time.perf_counter() - T0, "inputs_s": inputs_s}))


if __name__ == "__main__":
    main()
