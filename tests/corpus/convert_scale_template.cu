// shape modelled on: NPP's nppiConvert_32f8u / _32f16s / nppiScale families and OpenCV's GpuMat::convertTo from float: dst(y, x) = saturate(alpha * src(y, x) + beta) over a width x height float image, clamped to the destination type's range and rounded by a compile-time mode (NPP_RND_NEAR: to nearest even; NPP_RND_ZERO: toward zero), rows src_step and dst_step elements apart, templated on the destination type and the rounding mode with explicit instantiations, a thread per pixel on a 2-D grid, written from scratch for kt-tui's corpus
__device__ float round_mode(float v, bool nearest)
{
    return nearest ? rintf(v) : truncf(v);
}

// the saturating store, picked by the destination's type
__device__ void store_sat(unsigned char *p, float v, bool nearest)
{
    *p = (unsigned char)fminf(fmaxf(round_mode(v, nearest), 0.0f), 255.0f);
}

__device__ void store_sat(short *p, float v, bool nearest)
{
    *p = (short)fminf(fmaxf(round_mode(v, nearest), -32768.0f), 32767.0f);
}

__device__ void store_sat(float *p, float v, bool)
{
    *p = v;
}

template <typename Tout, bool NEAREST>
__global__ void convert_scale(const float *src, int src_step, Tout *dst, int dst_step, int width, int height,
                              float alpha, float beta)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    store_sat(dst + (size_t)y * dst_step + x, alpha * src[(size_t)y * src_step + x] + beta, NEAREST);
}

template __global__ void convert_scale<unsigned char, true>(const float *, int, unsigned char *, int, int, int, float,
                                                            float);
template __global__ void convert_scale<unsigned char, false>(const float *, int, unsigned char *, int, int, int, float,
                                                             float);
template __global__ void convert_scale<short, true>(const float *, int, short *, int, int, int, float, float);
template __global__ void convert_scale<short, false>(const float *, int, short *, int, int, int, float, float);
template __global__ void convert_scale<float, true>(const float *, int, float *, int, int, int, float, float);
