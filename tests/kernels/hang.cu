// Test kernel: correct for every block size but 64, where it spins forever.
__global__ void maybe_hang(float *out, const float *in, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (block_size_x == 64) {
        volatile int spin = 1;
        while (spin) { }
    }
    if (i < n) {
        out[i] = 2.0f * in[i];
    }
}
