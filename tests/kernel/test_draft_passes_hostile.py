"""Hostile kernels written here against the drafter's passes kernel/draft_uses.py, draft_radix.py and
draft_sound.py: work bounded by the kernel's size (counted as nodes walked, not timed), and drafts that
stay whole where a pass cannot follow."""

from __future__ import annotations

from kt_tui.kernel import cuda_ast, draft_uses
from kt_tui.kernel.draft import draft
from kt_tui.kernel.expr import parse
from kt_tui.kernel.source import find_kernels

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


def _counting(monkeypatch) -> list[int]:
    """cuda_ast.walk counting the nodes it yields, in [0]."""
    walked = [0]
    walk = cuda_ast.walk

    def counted(node, budget=cuda_ast.MAX_NODES):
        for n in walk(node, budget):
            walked[0] += 1
            yield n

    monkeypatch.setattr(cuda_ast, "walk", counted)
    return walked


def _size(unit: cuda_ast.Unit) -> int:
    return sum(1 for f in [*unit.kernels.values(), *unit.devices.values()] for _ in cuda_ast.walk(f.body))


def test_values_passed_down_to_a_long_device_function_are_followed_once(monkeypatch):
    body = "\n".join(f"    r += sqrtf(v) * {k}.0f;" for k in range(400))
    calls = "\n".join(f"    s += h1(a[i * m + {k}]);" for k in range(200))
    unit = cuda_ast.parse(CHAIN.format(body=body, calls=calls))
    size = _size(unit)
    walked = _counting(monkeypatch)
    found = draft_uses.uses(unit.kernels["chained"], {"a", "o"}, unit.devices)
    assert {u.kind for u in found["a"]} == {"root"}
    assert walked[0] < 10 * size  # before: g's body walked again for each of the 200 loads (~100 times the source)


STRIDES = """
__global__ void vol_gather(const float *A, float *O, int n, int s1, int s2, int s3, int s4, int s5)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= n || y >= n || z >= n) return;
    const float *a = A + z * s5;
    O[x] = a[x * s1 + y * s2 + z * s3];
    O[y] = a[(x * s1 + 1) * s2 * s4 + y];
}
"""


def test_strides_nested_in_one_another_stay_short_expressions():
    d = draft(find_kernels(STRIDES)[0], STRIDES)
    for a in d.spec.args:
        text = str(a.value if not a.is_array else a.size)
        if a.name != "A":  # A's own length is long before draft_radix runs
            assert len(text) <= 200, (a.name, text)  # before: s3 a 400-character nest of s2's `(s1) * ((...) // (s1))`
            parse(text)


def _stopped(src: str) -> list[str]:
    d = draft(find_kernels(src)[0], src)
    return [why for _, why in d.guesses if "analysis stopped" in why]


def test_an_index_divided_thousands_of_times_is_still_drafted():
    src = f"""
__global__ void halved(const float *A, float *O, int n, int w, int sb)
{{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int q = i{" / 2" * 1500};
    O[i] = A[q * sb + i % w];
}}"""
    assert _stopped(src) == []  # before: draft_radix's depths recursed once per division (RecursionError)


def test_a_load_nested_in_thousands_of_one_minus_is_still_drafted():
    x = "A[i]"
    for _ in range(1500):
        x = f"1 - ({x})"
    src = f"""
__global__ void complements(const float *A, float *O, int n)
{{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    O[i] = sqrtf({x});
}}"""
    assert _stopped(src) == []  # before: draft_uses followed the value up once per level (RecursionError)


def test_a_xorshift_states_range_is_said_in_whole_numbers():
    src = """
__global__ void xs(const unsigned *seeds, float *dst, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = seeds[i];
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    dst[i] = (float)(x & 255);
}"""
    d = draft(find_kernels(src)[0], src)
    said = [why for key, why in d.guesses if key == "args.seeds"]
    assert said and "[1, 4294967296)" in said[0]  # before: [1, 4.29497e+09)


def test_a_chain_of_thousands_of_assignments_is_read_in_linear_work(monkeypatch):
    src = f"""
__device__ unsigned never(unsigned x)
{{
    {" = ".join(["x"] * 1000)} = 1;
    return x;
}}
__global__ void k(const unsigned *a, unsigned *o, int n)
{{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned h = a[i];
    h ^= h >> 16;
    h *= 0x45d9f3bu;
    o[i] = h;
}}"""
    unit = cuda_ast.parse(src)
    size = _size(unit)
    walked = _counting(monkeypatch)
    found = draft_uses.uses(unit.kernels["k"], {"a", "o"}, unit.devices)
    assert {u.kind for u in found["a"]} == {"mix"}  # the hash still found
    assert walked[0] < 10 * size  # before: each assignment's right side walked again (~150 times the source)


def test_an_array_passed_to_a_function_the_analysis_cannot_follow_is_still_drafted():
    src = """
extern __device__ float load_tile(const float *p, int i);
__global__ void ext_call(const float *a, const float *b, float *o, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    o[i] = a[i] + load_tile(a, i) + b[i];
}"""
    assert _stopped(src) == []  # before: draft_sound zipped the accesses with no lows (ValueError)
