// shape modelled on: a Lax-Friedrichs step of the 1-D shallow-water equations (the teaching solvers of Clawpack / GeoClaw's GPU ports and the numerical-methods course codes they follow): a thread per interior cell 1 .. n - 2, depth h and discharge hu averaged from the two neighbours less dt / dx times half the flux difference, the flux (hu, hu^2 / h + g h^2 / 2), new arrays written, written from scratch for kt-tui's corpus
__global__ void swe_lax_friedrichs(const float *h, const float *hu, float *h_new, float *hu_new, int n, float dt_dx,
                                   float g)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
    if (i >= n - 1)
        return;
    const float hl = h[i - 1], hr = h[i + 1];
    const float ql = hu[i - 1], qr = hu[i + 1];
    const float fl = ql * ql / hl + 0.5f * g * hl * hl;
    const float fr = qr * qr / hr + 0.5f * g * hr * hr;
    h_new[i] = 0.5f * (hl + hr) - 0.5f * dt_dx * (qr - ql);
    hu_new[i] = 0.5f * (ql + qr) - 0.5f * dt_dx * (fr - fl);
}
