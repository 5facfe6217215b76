// shape modelled on: the add-compare-select step of HMM Viterbi decoding (torchaudio's forced_align CUDA kernel and GPU HMM decoders: for every next state the best previous state's score plus the transition's log probability, then the emission's, a back-pointer kept for the traceback), a batch of sequences, transitions [from][to], one warp per (sequence, next state) whose lanes take the previous states and reduce max and argmax with a down-shuffle (ties to the lower state), written from scratch for kt-tui's corpus
__global__ void viterbi_step(const float *prev, const float *trans, const float *emit, int batch, int nstates,
                             float *next, int *backptr)
{
    const int item = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (item >= batch * nstates)
        return;
    const int b = item / nstates;
    const int j = item % nstates;
    const float *p = prev + (size_t)b * nstates;
    float best = -3.0e38f;
    int arg = 0;
    for (int i = lane; i < nstates; i += 32) {
        const float s = p[i] + trans[(size_t)i * nstates + j];
        if (s > best) {
            best = s;
            arg = i;
        }
    }
    for (int off = 16; off > 0; off /= 2) {
        const float ob = __shfl_down_sync(0xffffffffu, best, off);
        const int oa = __shfl_down_sync(0xffffffffu, arg, off);
        if (ob > best || (ob == best && oa < arg)) {
            best = ob;
            arg = oa;
        }
    }
    if (lane == 0) {
        next[item] = best + emit[item];
        backptr[item] = arg;
    }
}
