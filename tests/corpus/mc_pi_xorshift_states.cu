// shape modelled on: Monte Carlo estimation with a per-thread random state kept in global memory between launches (the CUDA samples' MC_EstimatePiInlineP, cuRAND's curandState arrays loaded, drawn from and stored back, Marsaglia's xorshift32): a thread per state, nsamples points drawn in the unit square from the 32-bit state, those inside the quarter circle counted into hits, the advanced state written back, written from scratch for kt-tui's corpus
__device__ inline unsigned int xorshift32(unsigned int s)
{
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return s;
}

__global__ void mc_pi(unsigned int *state, int nstates, int nsamples, unsigned int *hits)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nstates)
        return;
    unsigned int s = state[t];
    unsigned int inside = 0;
    for (int k = 0; k < nsamples; ++k) {
        s = xorshift32(s);
        const float px = (s >> 8) * (1.0f / 16777216.0f);
        s = xorshift32(s);
        const float py = (s >> 8) * (1.0f / 16777216.0f);
        inside += px * px + py * py <= 1.0f;
    }
    state[t] = s;
    hits[t] = inside;
}
