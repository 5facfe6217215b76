// Fault: a is staged in shared memory and read by the partner thread 32 lanes away, without a
// __syncthreads() in between: the other warp may not have written it yet (racecheck sees it).
__global__ void scaled_add(float *out, const float *a, const float *b, float alpha, int n) {
    __shared__ float tile[block_size_x];
    int tid = threadIdx.x;
    int i = blockIdx.x * block_size_x + tid;
    tile[tid] = i < n ? a[i] : 0.0f;
    int p = tid ^ 32;
    int j = blockIdx.x * block_size_x + p;
    if (j < n) {
        out[j] = alpha * tile[p] + b[j];
    }
}
