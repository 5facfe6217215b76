// Follows the Triad kernel of the STREAM benchmark (McCalpin; as in BabelStream's CUDA version): a = b + scalar * c in double precision.
// Each thread handles items_per_thread elements, block_size_x apart, so every load stays coalesced.
__global__ void triad(double *a, const double *b, const double *c, double scalar, int n) {
    int base = blockIdx.x * block_size_x * items_per_thread + threadIdx.x;
#pragma unroll
    for (int k = 0; k < items_per_thread; k++) {
        int i = base + k * block_size_x;
        if (i < n) {
            a[i] = b[i] + scalar * c[i];
        }
    }
}
