// A correct rewrite: the same result, the multiply-add written with fmaf.
__global__ void scaled_add(float *out, const float *a, const float *b, float alpha, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) {
        out[i] = fmaf(alpha, a[i], b[i]);
    }
}
