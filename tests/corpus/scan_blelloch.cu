// shape modelled on: GPU Gems 3 ch.39 prescan (Blelloch work-efficient exclusive scan: two elements per thread, up-sweep then down-sweep in shared memory, block totals written out), written from scratch for kt-tui's corpus
#define BLOCK 256
__global__ void prescan(float *out, float *block_sums, const float *in, int n)
{
    __shared__ float temp[2 * BLOCK];
    int t = threadIdx.x;
    int m = 2 * blockDim.x;
    int base = blockIdx.x * m;
    temp[2 * t] = base + 2 * t < n ? in[base + 2 * t] : 0.0f;
    temp[2 * t + 1] = base + 2 * t + 1 < n ? in[base + 2 * t + 1] : 0.0f;
    int offset = 1;
    for (int d = m / 2; d > 0; d /= 2) {
        __syncthreads();
        if (t < d)
            temp[offset * (2 * t + 2) - 1] += temp[offset * (2 * t + 1) - 1];
        offset *= 2;
    }
    if (t == 0) {
        block_sums[blockIdx.x] = temp[m - 1];
        temp[m - 1] = 0.0f;
    }
    for (int d = 1; d < m; d *= 2) {
        offset /= 2;
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
            float v = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += v;
        }
    }
    __syncthreads();
    if (base + 2 * t < n)
        out[base + 2 * t] = temp[2 * t];
    if (base + 2 * t + 1 < n)
        out[base + 2 * t + 1] = temp[2 * t + 1];
}
