// shape modelled on: the CUDA samples' binomialOptions (European calls priced on a Cox-Ross-Rubinstein tree, a block per option): the nsteps + 1 leaf payoffs max(S * u^(2i - nsteps) - X, 0) and then nsteps rounds of backward induction disc * (pu * v[i + 1] + pd * v[i]) in two buffers of dynamic shared memory, the threads striding over each level's nodes, riskless rate R and volatility V shared by all options, written from scratch for kt-tui's corpus
// launched with 2 * (nsteps + 1) floats of dynamic shared memory
__global__ void binomial_options(const float *S, const float *X, const float *T, int nopt, float R, float V, int nsteps,
                                 float *price)
{
    extern __shared__ float levels[];
    const int opt = blockIdx.x;
    if (opt >= nopt)
        return;
    float *cur = levels;
    float *nxt = levels + nsteps + 1;
    const float dt = T[opt] / nsteps;
    const float vdt = V * sqrtf(dt);
    const float u = expf(vdt);
    const float d = 1.0f / u;
    const float pu = (expf(R * dt) - d) / (u - d);
    const float pd = 1.0f - pu;
    const float disc = expf(-R * dt);
    for (int i = threadIdx.x; i <= nsteps; i += blockDim.x)
        cur[i] = fmaxf(S[opt] * expf(vdt * (2 * i - nsteps)) - X[opt], 0.0f);
    __syncthreads();
    for (int level = nsteps; level > 0; --level) {
        for (int i = threadIdx.x; i < level; i += blockDim.x)
            nxt[i] = disc * (pu * cur[i + 1] + pd * cur[i]);
        __syncthreads();
        float *t = cur;
        cur = nxt;
        nxt = t;
    }
    if (threadIdx.x == 0)
        price[opt] = cur[0];
}
