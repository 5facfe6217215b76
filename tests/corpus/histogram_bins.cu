// shape modelled on: atomic histogram kernels with a bin-count argument (e.g. kernels/08_atomic_histogram.cu teaching code), written from scratch for kt-tui's corpus
// values are in [0, max_value); bin = value * nbins / max_value
__global__ void histo_bins(int *hist, const int *values, int n, int nbins, int max_value)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < n) {
        int bin = (int)((long long)values[tid] * nbins / max_value);
        atomicAdd(&hist[bin], 1);
    }
}
