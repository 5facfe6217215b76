// shape modelled on: an ensemble of Lorenz systems integrated with the classic fourth-order Runge-Kutta method, one member per thread, as Boost.odeint's Thrust example lorenz_parameters (a sweep over rho) and GPU ODE ensemble solvers (MPGOS, DiffEqGPU's kernels) run it: the state in three planes of n (x, y, z: structure of arrays) read and written back, rho per member, sigma and beta shared, nsteps steps of dt, written from scratch for kt-tui's corpus
__device__ void lorenz(float sigma, float rho, float beta, float x, float y, float z, float *d)
{
    d[0] = sigma * (y - x);
    d[1] = x * (rho - z) - y;
    d[2] = x * y - beta * z;
}

__global__ void lorenz_rk4(float *state, const float *rho, int n, float sigma, float beta, float dt, int nsteps)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = state[i], y = state[n + i], z = state[2 * n + i];
    const float r = rho[i];
    float k1[3], k2[3], k3[3], k4[3];
    for (int s = 0; s < nsteps; ++s) {
        lorenz(sigma, r, beta, x, y, z, k1);
        lorenz(sigma, r, beta, x + 0.5f * dt * k1[0], y + 0.5f * dt * k1[1], z + 0.5f * dt * k1[2], k2);
        lorenz(sigma, r, beta, x + 0.5f * dt * k2[0], y + 0.5f * dt * k2[1], z + 0.5f * dt * k2[2], k3);
        lorenz(sigma, r, beta, x + dt * k3[0], y + dt * k3[1], z + dt * k3[2], k4);
        x += dt / 6.0f * (k1[0] + 2.0f * k2[0] + 2.0f * k3[0] + k4[0]);
        y += dt / 6.0f * (k1[1] + 2.0f * k2[1] + 2.0f * k3[1] + k4[1]);
        z += dt / 6.0f * (k1[2] + 2.0f * k2[2] + 2.0f * k3[2] + k4[2]);
    }
    state[i] = x;
    state[n + i] = y;
    state[2 * n + i] = z;
}
