// Test kernel: correct for every block size but 64, where every thread spins until killed.
__global__ void maybe_hang(float *out, const float *in, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (block_size_x == 64) {
        long long start = clock64();
        while (clock64() - start >= 0) { }
    }
    if (i < n) {
        out[i] = 2.0f * in[i];
    }
}
