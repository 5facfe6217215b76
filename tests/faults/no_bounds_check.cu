// Fault: no bounds check. Right where n is a multiple of the block size; at a ragged size the
// last block reads and writes past the arrays, which rarely faults: memcheck sees it.
__global__ void scaled_add(float *out, const float *a, const float *b, float alpha, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    out[i] = alpha * a[i] + b[i];
}
