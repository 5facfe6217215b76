// shape modelled on: per-row min-max scaling of float rows in pitched memory (OpenCV's normalize with NORM_MINMAX applied row by row, scikit-learn's minmax_scale on samples, NPP's nppiMinMax feeding a scale): a block per row, rows src_pitch and dst_pitch bytes apart, static shared trees of BLOCK = 256 (a #define) for the minimum and the maximum, then every element mapped to lo + (hi - lo) * (v - min) / (max - min), written from scratch for kt-tui's corpus
#define BLOCK 256

__global__ void minmax_scale_rows(const float *src, int src_pitch, float *dst, int dst_pitch, int rows, int cols, float lo, float hi)
{
    __shared__ float smin[BLOCK];
    __shared__ float smax[BLOCK];
    const int r = blockIdx.x;
    if (r >= rows)
        return;
    const float *in = (const float *)((const char *)src + (size_t)r * src_pitch);
    float *out = (float *)((char *)dst + (size_t)r * dst_pitch);
    float mn = 3.0e38f, mx = -3.0e38f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        mn = fminf(mn, in[c]);
        mx = fmaxf(mx, in[c]);
    }
    smin[threadIdx.x] = mn;
    smax[threadIdx.x] = mx;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half >>= 1) {
        if (threadIdx.x < half) {
            smin[threadIdx.x] = fminf(smin[threadIdx.x], smin[threadIdx.x + half]);
            smax[threadIdx.x] = fmaxf(smax[threadIdx.x], smax[threadIdx.x + half]);
        }
        __syncthreads();
    }
    const float lo_v = smin[0];
    const float range = smax[0] - lo_v;
    const float scale = range > 0.0f ? (hi - lo) / range : 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        out[c] = lo + (in[c] - lo_v) * scale;
}
