// shape modelled on: the repetition penalty of LLM samplers (Hugging Face's RepetitionPenaltyLogitsProcessor, vLLM's and llama.cpp's: a logit of a token already in the sequence divided by the penalty when positive, multiplied when negative, once however often it occurs), one block per sequence marking its history in a shared bitset of the vocabulary, logits rows vocab apart, written from scratch for kt-tui's corpus
__global__ void repetition_penalty(float *logits, const int *history, int nseqs, int hist_len, int vocab, float penalty)
{
    extern __shared__ unsigned int present[];
    const int b = blockIdx.x;
    if (b >= nseqs)
        return;
    const int nwords = (vocab + 31) / 32;
    for (int w = threadIdx.x; w < nwords; w += blockDim.x)
        present[w] = 0;
    __syncthreads();
    const int *h = history + (size_t)b * hist_len;
    for (int t = threadIdx.x; t < hist_len; t += blockDim.x) {
        const int tok = h[t];
        atomicOr(&present[tok / 32], 1u << (tok % 32));
    }
    __syncthreads();
    float *row = logits + (size_t)b * vocab;
    for (int v = threadIdx.x; v < vocab; v += blockDim.x) {
        if (present[v / 32] & (1u << (v % 32))) {
            const float x = row[v];
            row[v] = x > 0.0f ? x / penalty : x * penalty;
        }
    }
}
