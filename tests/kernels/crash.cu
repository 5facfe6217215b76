// Test kernel: correct for every block size but 128, where it writes far out of bounds
// (an illegal address that poisons the CUDA context); 64 computes a wrong result. (32, the first other
// block size, is right: the check's test runs the original there and would blame a spec it differs at.)
__global__ void maybe_crash(float *out, const float *in, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (block_size_x == 128 && i == 0) {
        out[(size_t)1 << 40] = 1.0f;
    }
    if (i < n) {
        out[i] = 2.0f * in[i] + (block_size_x == 64 && i == 1000 ? 1.0f : 0.0f);
    }
}
