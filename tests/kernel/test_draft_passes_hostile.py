"""Hostile kernels written here against the drafter's passes kernel/draft_uses.py, draft_radix.py and
draft_sound.py: work bounded by the kernel's size (counted as nodes walked, not timed), and drafts that
stay whole where a pass cannot follow."""

from __future__ import annotations

from kt_tui.kernel import cuda_ast, draft_uses

CHAIN = """
__device__ float g(float v)
{{
    float r = 0.f;
{body}
    return r;
}}
__device__ float h2(float v) {{ return g(v); }}
__device__ float h1(float v) {{ return h2(v); }}
__global__ void chained(const float *a, float *o, int n, int m)
{{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = 0.f;
{calls}
    o[i] = s;
}}
"""


def test_values_passed_down_to_a_long_device_function_are_followed_once(monkeypatch):
    body = "\n".join(f"    r += sqrtf(v) * {k}.0f;" for k in range(400))
    calls = "\n".join(f"    s += h1(a[i * m + {k}]);" for k in range(200))
    unit = cuda_ast.parse(CHAIN.format(body=body, calls=calls))
    size = sum(1 for f in [*unit.kernels.values(), *unit.devices.values()] for _ in cuda_ast.walk(f.body))
    walked = [0]
    walk = cuda_ast.walk

    def counted(node, budget=cuda_ast.MAX_NODES):
        for n in walk(node, budget):
            walked[0] += 1
            yield n

    monkeypatch.setattr(cuda_ast, "walk", counted)
    found = draft_uses.uses(unit.kernels["chained"], {"a", "o"}, unit.devices)
    assert {u.kind for u in found["a"]} == {"root"}
    assert walked[0] < 10 * size  # before: g's body walked again for each of the 200 loads (~100 times the source)
