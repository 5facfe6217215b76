// shape modelled on: torch.isclose / numpy.isclose (|a - b| <= atol + rtol * |b|; NaNs equal only when equal_nan is set; infinities close only to themselves) as allclose-style comparisons use it to report how many elements differ: a flag byte per element, then __syncthreads_count over the block and one atomicAdd of the block's mismatches, a grid-stride loop over n elements read with increments inc_a and inc_b, written from scratch for kt-tui's corpus
__global__ void isclose_count(const float *a, int inc_a, const float *b, int inc_b, int n, float rtol, float atol,
                              int equal_nan, unsigned char *close, unsigned int *mismatches)
{
    // base is the same for the whole block, so every thread reaches each __syncthreads_count
    for (int base = blockIdx.x * blockDim.x; base < n; base += gridDim.x * blockDim.x) {
        const int i = base + threadIdx.x;
        int bad = 0;
        if (i < n) {
            const float x = a[(size_t)i * inc_a];
            const float y = b[(size_t)i * inc_b];
            bool ok;
            if (isnan(x) || isnan(y))
                ok = equal_nan && isnan(x) && isnan(y);
            else if (x == y)
                ok = true;
            else
                ok = isfinite(x) && isfinite(y) && fabsf(x - y) <= atol + rtol * fabsf(y);
            close[i] = ok;
            bad = !ok;
        }
        const int count = __syncthreads_count(bad);
        if (threadIdx.x == 0 && count > 0)
            atomicAdd(mismatches, (unsigned int)count);
    }
}
