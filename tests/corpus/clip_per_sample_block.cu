// shape modelled on: per-sample gradient clipping of differentially private SGD (Opacus / TensorFlow Privacy: each sample's gradient g scaled by min(1, max_norm / (||g|| + 1e-6)) before the batch's gradients are summed and noised), one block per sample whose gradient lies `sample_stride` floats after the previous one, a shared-memory tree for the norm, written from scratch for kt-tui's corpus
#define MAX_THREADS 1024
__global__ void clip_per_sample(float *grads, long long sample_stride, int dim, int nsamples, float max_norm,
                                float *clip_factor)
{
    __shared__ float part[MAX_THREADS];
    const int s = blockIdx.x;
    if (s >= nsamples)
        return;
    float *g = grads + s * sample_stride;
    float sq = 0.0f;
    for (int i = threadIdx.x; i < dim; i += blockDim.x)
        sq += g[i] * g[i];
    part[threadIdx.x] = sq;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (threadIdx.x < h)
            part[threadIdx.x] += part[threadIdx.x + h];
        __syncthreads();
    }
    const float factor = fminf(1.0f, max_norm / (sqrtf(part[0]) + 1e-6f));
    for (int i = threadIdx.x; i < dim; i += blockDim.x)
        g[i] *= factor;
    if (threadIdx.x == 0)
        clip_factor[s] = factor;
}
