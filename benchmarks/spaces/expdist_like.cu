// Gaussian-weighted pairwise interaction of two 2-D point sets: out[i] = sum_j w(|a_i - b_j|).
// Each thread owns tile_size_x points of A and walks all of B in order (so every configuration
// adds the same terms in the same order); loop_unroll_factor_j unrolls that walk and `terms` expands each
// weight into a short series, which is what makes this kernel slow to compile.
__global__ void expdist_like(float *out, const float *a, const float *b, int m, int n, float scale)
{
    int first = blockIdx.x * block_size_x * tile_size_x + threadIdx.x;
    float ax[tile_size_x], ay[tile_size_x], acc[tile_size_x];
#pragma unroll
    for (int t = 0; t < tile_size_x; t++) {
        int i = first + t * block_size_x;
        ax[t] = i < m ? a[2 * i] : 0.0f;
        ay[t] = i < m ? a[2 * i + 1] : 0.0f;
        acc[t] = 0.0f;
    }
#pragma unroll loop_unroll_factor_j
    for (int j = 0; j < n; j++) {
        float bx = b[2 * j], by = b[2 * j + 1];
#pragma unroll
        for (int t = 0; t < tile_size_x; t++) {
            float dx = ax[t] - bx, dy = ay[t] - by;
            float d2 = (dx * dx + dy * dy) * scale;
            float w = 0.0f, p = 1.0f;
#pragma unroll
            for (int k = 1; k <= terms; k++) {
                p *= d2 / k;
                w += (k & 1 ? -p : p) * __expf(-d2 * k);
            }
            acc[t] += w;
        }
    }
#pragma unroll
    for (int t = 0; t < tile_size_x; t++) {
        int i = first + t * block_size_x;
        if (i < m) out[i] = acc[t];
    }
}
