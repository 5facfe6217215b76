// shape modelled on: Monte Carlo pricing of an up-and-out barrier call under geometric Brownian motion (the path loop of NVIDIA's CUDA samples MonteCarloMultiGPU, QuantLib's and ORE's GPU path pricers): a thread per path, the normal draws of step s of all paths npaths apart (z[s * npaths + p]), the log-price stepped by (r - sigma^2 / 2) dt + sigma sqrt(dt) z with dt = T / nsteps, the path knocked out once the price reaches the barrier B above the spot S0, the discounted call payoff max(S - K, 0) of the paths still alive, written from scratch for kt-tui's corpus
__global__ void barrier_up_out_paths(const float *z, int npaths, int nsteps, float S0, float K, float B, float r,
                                     float sigma, float T, float *payoff)
{
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npaths)
        return;
    const float dt = T / nsteps;
    const float drift = (r - 0.5f * sigma * sigma) * dt;
    const float vol = sigma * sqrtf(dt);
    const float log_barrier = logf(B);
    float x = logf(S0);
    bool alive = true;
    for (int s = 0; s < nsteps && alive; ++s) {
        x += drift + vol * z[(size_t)s * npaths + p];
        alive = x < log_barrier;
    }
    payoff[p] = alive ? expf(-r * T) * fmaxf(expf(x) - K, 0.0f) : 0.0f;
}
