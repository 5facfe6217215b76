// shape modelled on: cuFFT pointwise complex multiply callbacks / ComplexPointwiseMulAndScale in cuda-samples simpleCUFFT, written from scratch for kt-tui's corpus
__device__ float2 cmul(float2 a, float2 b)
{
    return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

__global__ void complex_mul_scale(float2 *a, const float2 *b, int size, float scale)
{
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < size) {
        float2 c = cmul(a[tid], b[tid]);
        a[tid] = make_float2(c.x * scale, c.y * scale);
    }
}
