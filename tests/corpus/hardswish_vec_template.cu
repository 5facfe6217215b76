// shape modelled on: a vectorised elementwise activation over a tensor of more than 2**31 elements (PyTorch's hardswish through ATen's vectorized_elementwise_kernel with aligned vectors, MobileNetV3's h-swish, Apex's multi-tensor vector loads): template <typename V> over the vector type with float2 and float4 instantiated, a grid-stride loop on a long long count of vectors, x * min(max(x + 3, 0), 6) / 6 on each lane, written from scratch for kt-tui's corpus
__device__ inline float hswish(float v)
{
    return v * fminf(fmaxf(v + 3.0f, 0.0f), 6.0f) * (1.0f / 6.0f);
}

__device__ inline float2 hswish(float2 v)
{
    return make_float2(hswish(v.x), hswish(v.y));
}

__device__ inline float4 hswish(float4 v)
{
    return make_float4(hswish(v.x), hswish(v.y), hswish(v.z), hswish(v.w));
}

template <typename V>
__global__ void hardswish_vec(const V *in, V *out, long long nvec)
{
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nvec; i += step)
        out[i] = hswish(in[i]);
}

template __global__ void hardswish_vec<float2>(const float2 *, float2 *, long long);
template __global__ void hardswish_vec<float4>(const float4 *, float4 *, long long);
