"""Time engine/kernel_step.prepare (parameter fixes + review, the compile stubbed) on a large generated
kernel: the work done between an LLM's rewrite and the kernel gate. Run from a checkout:
`PYTHONPATH=$PWD python benchmarks/prepare_parse.py`; prints seconds per prepare and lexes of the code."""

import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kt_tui.engine import kernel_step  # noqa: E402
from kt_tui.gpu import compile as gpu_compile  # noqa: E402
from kt_tui.kernel import syntax  # noqa: E402
from kt_tui.kernel.spec import load_spec  # noqa: E402

EXAMPLES = ROOT / "examples"
ORIGINAL = (EXAMPLES / "vector_add.cu").read_text()
HELPERS = "".join(
    f"__device__ float helper_{i}(const float *x, int n) {{ float s = 0; for (int j = 0; j < n; j++) "
    f"s += x[j] * {i}.0f; return s; }}  // helper {i}\n"
    for i in range(2000)
)
CODE = HELPERS + ORIGINAL.replace("int i = blockIdx.x", "int i = (int)(blockIdx.x)")


def main() -> None:
    spec = load_spec(EXAMPLES / "vector_add.cu.toml")
    gpu_compile.compile_check = lambda *a, **k: SimpleNamespace(ok=True, reason="", resources={})
    engine = SimpleNamespace(
        original="v0",
        version=lambda vid: (ORIGINAL, spec),
        choice=SimpleNamespace(compile_arch=lambda: ("sm_80", "sm_80")),
    )
    real, lexes = syntax.lex, [0]

    def counting(source):
        lexes[0] += source == CODE
        return real(source)

    syntax.lex = counting
    times = []
    for _ in range(5):
        start = time.perf_counter()
        kernel_step.prepare(engine, CODE, {"block_size_x": [32, 64], "unused": [1]}, [], spec)
        times.append(time.perf_counter() - start)
    print(f"{len(CODE)} characters: prepare {statistics.median(times):.3f} s (median of 5), {lexes[0] // 5} lexes")


if __name__ == "__main__":
    main()
