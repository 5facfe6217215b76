// shape modelled on: one day of a discrete-time SIR epidemic on a contact network (the infection step of agent-based simulators such as EpiFast, FRED and Covasim): agents' states (0 susceptible, 1 infectious, 2 recovered) as bytes, contacts in CSR (row_ptr, col_idx); a susceptible agent with k infectious contacts is infected with probability 1 - (1 - beta)^k, an infectious one recovers with probability gamma, each drawing its uniform from u (filled by cuRAND before the step); next states to a second buffer and the day's new infections counted by atomicAdd, a thread per agent, written from scratch for kt-tui's corpus
__global__ void sir_step(const int *row_ptr, const int *col_idx, const unsigned char *state, const float *u, int n, float beta,
                         float gamma, unsigned char *next, int *new_infections)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned char s = state[i];
    if (s == 0) {
        int k = 0;
        for (int e = row_ptr[i]; e < row_ptr[i + 1]; ++e)
            k += state[col_idx[e]] == 1;
        if (k > 0 && u[i] < 1.0f - powf(1.0f - beta, (float)k)) {
            s = 1;
            atomicAdd(new_infections, 1);
        }
    } else if (s == 1 && u[i] < gamma) {
        s = 2;
    }
    next[i] = s;
}
