// shape modelled on: the leaky integrate-and-fire neuron of spiking-network simulators and SNN training libraries (snnTorch's Leaky with reset by subtraction, Norse's LIF, Brian2's and GeNN's generated neuron updates): a thread per neuron walks nsteps time steps of input current stored step-major (row t of n currents), the membrane decays by beta, a spike when it reaches threshold subtracts threshold; the membrane is carried in v (read and written) and the spikes counted per neuron, written from scratch for kt-tui's corpus
__global__ void lif_steps(float *v, const float *current, int n, int nsteps, float beta, float threshold, int *spike_count)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float m = v[i];
    int count = 0;
    for (int t = 0; t < nsteps; ++t) {
        m = beta * m + current[(size_t)t * n + i];
        if (m >= threshold) {
            m -= threshold;
            ++count;
        }
    }
    v[i] = m;
    spike_count[i] = count;
}
