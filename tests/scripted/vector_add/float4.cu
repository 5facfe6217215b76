// c = a + b with 16-byte loads and stores: each thread handles four consecutive floats.
__global__ void vector_add(float *c, const float *a, const float *b, int n) {
    int i = (blockIdx.x * block_size_x + threadIdx.x) * 4;
    if (i + 3 < n) {
        float4 x = reinterpret_cast<const float4 *>(a)[i / 4];
        float4 y = reinterpret_cast<const float4 *>(b)[i / 4];
        reinterpret_cast<float4 *>(c)[i / 4] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    } else {
        for (int j = i; j < n; j++) {
            c[j] = a[j] + b[j];
        }
    }
}
