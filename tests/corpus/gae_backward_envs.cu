// shape modelled on: generalized advantage estimation (Schulman et al.; Stable-Baselines3's compute_returns_and_advantage, CleanRL's PPO, Isaac Gym's and rl_games' GPU rollout buffers): a thread per environment walks a rollout of nsteps backwards, rewards and done bytes stored step-major (row t of nenv), values with one bootstrap row more, delta = r + gamma * V' * (1 - done) - V, the advantage carried with gamma * lambda, advantages and returns written, written from scratch for kt-tui's corpus
__global__ void gae_advantages(const float *rewards, const float *values, const unsigned char *dones, int nsteps, int nenv, float gamma, float lam, float *adv, float *returns)
{
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= nenv)
        return;
    float last = 0.0f;
    for (int t = nsteps - 1; t >= 0; --t) {
        const size_t i = (size_t)t * nenv + e;
        const float live = dones[i] ? 0.0f : 1.0f;
        const float delta = rewards[i] + gamma * values[i + nenv] * live - values[i];
        last = delta + gamma * lam * live * last;
        adv[i] = last;
        returns[i] = last + values[i];
    }
}
