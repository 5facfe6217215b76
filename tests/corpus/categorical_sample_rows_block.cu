// shape modelled on: drawing one category per row from unnormalised probabilities by inverse CDF (PyTorch's torch.multinomial with replacement, sampleMultinomialWithReplacement, and the final sampling step of vLLM's / FasterTransformer's samplers): a block per row of [rows, vocab] weights rows ld apart, the block scanning the row in chunks of blockDim.x with a shared-memory inclusive scan in double, twice (the total, then the search), the sample the first index whose running sum passes u[row] * total, written from scratch for kt-tui's corpus
#define MAX_THREADS 1024

__device__ double block_inclusive_scan(double v, double *buf)
{
    const int t = threadIdx.x;
    buf[t] = v;
    __syncthreads();
    for (int off = 1; off < blockDim.x; off *= 2) {
        const double add = t >= off ? buf[t - off] : 0.0;
        __syncthreads();
        buf[t] += add;
        __syncthreads();
    }
    return buf[t];
}

__global__ void sample_rows(const float *probs, int ld, int vocab, const float *u, int rows, int *out)
{
    __shared__ double buf[MAX_THREADS];
    __shared__ int pick;
    const int row = blockIdx.x;
    if (row >= rows)
        return;
    const float *p = probs + (size_t)row * ld;
    const int last = blockDim.x - 1;
    double total = 0.0;
    for (int c = 0; c < vocab; c += blockDim.x) {
        const int k = c + threadIdx.x;
        block_inclusive_scan(k < vocab ? p[k] : 0.0f, buf);
        total += buf[last];
        __syncthreads();
    }
    const double target = (double)u[row] * total;
    if (threadIdx.x == 0)
        pick = vocab - 1;
    double running = 0.0;
    for (int c = 0; c < vocab; c += blockDim.x) {
        const int k = c + threadIdx.x;
        const double s = block_inclusive_scan(k < vocab ? p[k] : 0.0f, buf);
        const double before = running + (threadIdx.x > 0 ? buf[threadIdx.x - 1] : 0.0);
        if (k < vocab && running + s > target && before <= target)
            pick = k;
        running += buf[last];
        __syncthreads();
        if (running > target)
            break;
    }
    if (threadIdx.x == 0)
        out[row] = pick;
}
