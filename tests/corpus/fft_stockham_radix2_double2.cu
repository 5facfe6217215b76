// shape modelled on: one radix-2 pass of a Stockham autosort FFT (Govindaraju et al.'s GPU FFT of SC08, Apple's OpenCL FFT and VkFFT's out-of-place passes, the Stockham formulation of Van Loan's book): a thread per butterfly (n / 2 of them), inputs j and j + n / 2, twiddle exp(-i pi k / ns) for k = j % ns by sincospi, outputs at (j / ns) * 2 * ns + k and ns further into y, double2 values ping-ponged between x and y, written from scratch for kt-tui's corpus
__global__ void stockham_radix2(const double2 *x, double2 *y, int n, int ns)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int half = n / 2;
    if (j >= half)
        return;
    const int k = j % ns;
    const double2 a = x[j];
    const double2 b = x[j + half];
    double s, c;
    sincospi(-(double)k / ns, &s, &c);
    const double br = b.x * c - b.y * s;
    const double bi = b.x * s + b.y * c;
    const int o = (j / ns) * 2 * ns + k;
    y[o] = make_double2(a.x + br, a.y + bi);
    y[o + ns] = make_double2(a.x - br, a.y - bi);
}
