// shape modelled on: T5's relative position bias (Hugging Face transformers' T5Attention._relative_position_bucket and compute_bias; the relative-attention-bias kernels of FasterTransformer and TensorRT-LLM): for query i, offset by past cached tokens, and key j, the distance j - (i + past) falls in one of num_buckets buckets (half for each sign when bidirectional; exact below half a side's buckets, logarithmic up to max_distance, the last bucket beyond) and bias[h][i][j] = table[bucket * n_heads + h], a thread per (key, query, head) on a 3-D grid, written from scratch for kt-tui's corpus
__global__ void t5_position_bias(const float *table, int num_buckets, int n_heads, int qlen, int klen, int past,
                                 int bidirectional, int max_distance, float *bias)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    const int h = blockIdx.z * blockDim.z + threadIdx.z;
    if (j >= klen || i >= qlen || h >= n_heads)
        return;
    int rel = j - (i + past);
    int side = num_buckets;
    int bucket = 0;
    if (bidirectional) {
        side /= 2;
        bucket = rel > 0 ? side : 0;
        rel = abs(rel);
    } else {
        rel = max(-rel, 0);
    }
    const int exact = side / 2;
    if (rel < exact) {
        bucket += rel;
    } else {
        const int far = exact + (int)(logf((float)rel / exact) / logf((float)max_distance / exact) * (side - exact));
        bucket += min(far, side - 1);
    }
    bias[((size_t)h * qlen + i) * klen + j] = table[bucket * n_heads + h];
}
