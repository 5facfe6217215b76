// shape modelled on: the router of mixture-of-experts layers (vLLM's / TensorRT-LLM's topk_softmax for Mixtral- and DeepSeek-style gating: softmax over a token's num_experts logits, the k largest probabilities with their experts in decreasing order, optionally renormalised to sum to 1), one warp per token whose lanes stride the experts, shuffle reductions for the max, the sum and each pick, written from scratch for kt-tui's corpus
__global__ void moe_topk_softmax(const float *logits, int num_tokens, int num_experts, int k, int renorm,
                                 float *topk_weights, int *topk_ids)
{
    const int token = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (token >= num_tokens)
        return;
    const float *row = logits + (size_t)token * num_experts;
    float mx = -INFINITY, sum = 0.0f;
    for (int e = lane; e < num_experts; e += 32)
        mx = fmaxf(mx, row[e]);
    for (int off = 16; off > 0; off >>= 1)
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffff, mx, off));
    for (int e = lane; e < num_experts; e += 32)
        sum += __expf(row[e] - mx);
    for (int off = 16; off > 0; off >>= 1)
        sum += __shfl_xor_sync(0xffffffff, sum, off);
    // pick j: the largest logit ranked below pick j - 1 (ties go to the lower expert)
    float last = INFINITY, picked = 0.0f;
    int last_id = -1;
    for (int j = 0; j < k; j++) {
        float best = -INFINITY;
        int best_id = num_experts;
        for (int e = lane; e < num_experts; e += 32) {
            const float v = row[e];
            const bool below = v < last || (v == last && e > last_id);
            if (below && (v > best || (v == best && e < best_id))) {
                best = v;
                best_id = e;
            }
        }
        for (int off = 16; off > 0; off >>= 1) {
            const float ov = __shfl_xor_sync(0xffffffff, best, off);
            const int oid = __shfl_xor_sync(0xffffffff, best_id, off);
            if (ov > best || (ov == best && oid < best_id)) {
                best = ov;
                best_id = oid;
            }
        }
        last = best;
        last_id = best_id;
        const float p = __expf(best - mx) / sum;
        picked += p;
        if (lane == 0) {
            topk_weights[(size_t)token * k + j] = p;
            topk_ids[(size_t)token * k + j] = best_id;
        }
    }
    __syncwarp();
    if (renorm)
        for (int j = lane; j < k; j += 32)
            topk_weights[(size_t)token * k + j] /= picked;
}
