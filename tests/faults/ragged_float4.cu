// Fault: float4 loads and stores without a tail. Right when n is a multiple of 4 (the spec's
// size); at a ragged size the last n % 4 elements are never written.
__global__ void scaled_add(float *out, const float *a, const float *b, float alpha, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n / 4) {
        float4 x = reinterpret_cast<const float4 *>(a)[i];
        float4 y = reinterpret_cast<const float4 *>(b)[i];
        reinterpret_cast<float4 *>(out)[i] = make_float4(alpha * x.x + y.x, alpha * x.y + y.y,
                                                         alpha * x.z + y.z, alpha * x.w + y.w);
    }
}
