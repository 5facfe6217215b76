// shape modelled on: the detect-and-integrate step of radio-astronomy spectrometers (CASPER / Bifrost / xGPU-style pipelines: the total power |X|^2 + |Y|^2 of each channel's complex voltages in two polarisations, summed over nint consecutive spectra; a last partial group of spectra is dropped), written from scratch for kt-tui's corpus
__global__ void detect_integrate(const float2 *volt_x, const float2 *volt_y, float *power, int nchan, int ntime,
                                 int nint)
{
    const int nout = ntime / nint;
    const int chan = blockIdx.x * blockDim.x + threadIdx.x;
    const int t = blockIdx.y * blockDim.y + threadIdx.y;
    if (chan >= nchan || t >= nout)
        return;
    float acc = 0.0f;
    for (int k = 0; k < nint; k++) {
        const size_t idx = (size_t)(t * nint + k) * nchan + chan;
        const float2 a = volt_x[idx];
        const float2 b = volt_y[idx];
        acc += a.x * a.x + a.y * a.y + b.x * b.x + b.y * b.y;
    }
    power[(size_t)t * nchan + chan] = acc;
}
