"""A template kernel's type parameter drafted as the type its source means it for (issue 35)."""

from __future__ import annotations

from .extent_kernels import _draft

SATURATING = """
__device__ unsigned char clip(float v, unsigned char) { return (unsigned char)fminf(fmaxf(v, 0.0f), 255.0f); }
__device__ float clip(float v, float) { return v; }

template <typename T>
__global__ void gain(const T *in, T *out, int n, float g) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = clip(in[i] * g, T());
}
"""


def test_a_type_parameter_takes_the_type_of_the_helper_overload_called_for_it():
    spec = _draft(SATURATING)
    assert spec.kernel == "gain<unsigned char>"
    arrays = {a.name: a for a in spec.args if a.size is not None}
    assert arrays["in"].type == arrays["out"].type == "uint8"
    assert arrays["in"].low == 0 and arrays["in"].high > 100  # byte values, not floats in [-100, 100)


PITCHED = """
template <typename T>
__global__ void copy_rows(const T *src, size_t src_step, T *dst, int cols, int rows) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= cols || y >= rows) return;
    const T *row = (const T *)((const char *)src + y * src_step);
    dst[y * cols + x] = row[x];
}

template __global__ void copy_rows<short>(const short *, size_t, short *, int, int);
"""


def test_an_explicit_instantiation_names_the_type_and_sizes_rows_of_bytes_in_it():
    spec = _draft(PITCHED)
    assert spec.kernel == "copy_rows<short>"
    arrays = {a.name: a for a in spec.args if a.size is not None}
    assert arrays["src"].type == arrays["dst"].type == "int16"
    assert arrays["src"].low < 0  # a signed type: negative values drawn too


def test_a_type_parameter_with_no_sign_of_its_type_stays_float():
    src = PITCHED.split("template __global__")[0]
    assert _draft(src).kernel == "copy_rows<float>"
