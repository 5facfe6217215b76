// shape modelled on: trace balancing of seismic gathers (Seismic Unix's sugain pbal=1, the RMS trace scaling of Madagascar's and Devito-era GPU processing flows): a block per trace, traces ld samples apart, the block's threads striding over the trace's samples for the sum of squares, a shared-memory tree (MAX_BLOCK partial sums, the block size a power of two), each sample divided in place by the trace's RMS plus a small eps that keeps dead traces finite, written from scratch for kt-tui's corpus
#define MAX_BLOCK 1024
__global__ void balance_traces(float *traces, int ntraces, int nsamples, int ld, float eps)
{
    __shared__ float part[MAX_BLOCK];
    const int tr = blockIdx.x;
    if (tr >= ntraces)
        return;
    float *x = traces + (size_t)tr * ld;
    float s = 0.0f;
    for (int i = threadIdx.x; i < nsamples; i += blockDim.x)
        s += x[i] * x[i];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (threadIdx.x < h)
            part[threadIdx.x] += part[threadIdx.x + h];
        __syncthreads();
    }
    const float scale = 1.0f / (sqrtf(part[0] / nsamples) + eps);
    for (int i = threadIdx.x; i < nsamples; i += blockDim.x)
        x[i] *= scale;
}
