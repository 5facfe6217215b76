"""Run every kernel of tests/kernel/test_draft_extents.py with its drafted spec, at the spec's sizes and at each
check size, on a GPU; under compute-sanitizer an index past an array is reported.

    compute-sanitizer --tool memcheck --error-exitcode 3 python benchmarks/draft_memcheck.py [--small]

Prints one line per kernel and size: the outputs' distinct values and whether they changed (a check on an
output that is constant or unchanged proves nothing). Exit 0 when every run finished; the sanitizer's
exit 3 means an out-of-bounds access (its report names the kernel).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kernel_tuner import run_kernel  # noqa: E402

from kt_tui.kernel.draft import draft  # noqa: E402
from kt_tui.kernel.inputs import make_args  # noqa: E402
from kt_tui.kernel.source import find_kernels  # noqa: E402
from tests import test_draft_extents as cases  # noqa: E402

KERNELS = [
    "AOS",
    "SQUARE",
    "HALO",
    "KMEANS",
    "LIFE",
    "ESCAPE",
    "GATHER",
    "HELPER",
    "STRIDED",
    "GRID_STRIDE",
    "BATCHED",
    "FLAT",
    "HIST",
    "REDUCE",
    "TILED",
    "STENCIL_3D",
    "FIXED_BLOCK",
    "NBODY",
]


def main(argv: list[str]) -> int:
    small = "--small" in argv  # only the check sizes (faster under the sanitizer)
    failed = 0
    for name in KERNELS:
        src = getattr(cases, name)
        kernels = find_kernels(src)
        kernel = kernels[-1]
        spec = draft(kernel, src).spec
        tables = [("spec", spec.sizes)] * (not small) + [(t["label"], t["sizes"]) for t in spec.extra_sizes()]
        for label, sizes in tables:
            args = make_args(spec, sizes)
            before = [np.copy(a) if isinstance(a, np.ndarray) else a for a in args]
            try:
                out = run_kernel(
                    kernel.name,
                    src,
                    spec.problem_size_values(sizes),
                    args,
                    spec.baseline_params(),
                    grid_div_x=spec.grid_div_x,
                    grid_div_y=spec.grid_div_y,
                    grid_div_z=spec.grid_div_z,
                    lang="CUDA",
                    quiet=True,
                )
            except Exception as e:  # noqa: BLE001  reported, the next one runs
                failed += 1
                print(f"{name:12} {label:28} FAILED {type(e).__name__}: {e}")
                continue
            notes = []
            for i, a in enumerate(spec.args):
                if a.output:
                    values = np.asarray(out[i])
                    changed = not np.array_equal(values, before[i], equal_nan=True)
                    notes.append(
                        f"{a.name}: {len(np.unique(values[:1_000_000]))} distinct" + ("" if changed else ", UNCHANGED")
                    )
            print(f"{name:12} {label:28} ok  {'; '.join(notes)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
