// shape modelled on: radix-2 Cooley-Tukey FFT stage kernels of CUDA teaching code (one butterfly per thread, cuDoubleComplex-style double2 helpers, twiddles from sincospi), written from scratch for kt-tui's corpus
__device__ double2 cadd(double2 a, double2 b) { return make_double2(a.x + b.x, a.y + b.y); }
__device__ double2 csub(double2 a, double2 b) { return make_double2(a.x - b.x, a.y - b.y); }
__device__ double2 cmul(double2 a, double2 b) { return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }

// one in-place stage over n points (a power of two): butterflies `span` points apart (a power of two, at most n / 2)
__global__ void fft_radix2_stage(double2 *data, int n, int span)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n / 2)
        return;
    int k = t % span;
    int i0 = (t / span) * 2 * span + k;
    int i1 = i0 + span;
    double s, c;
    sincospi(-(double)k / span, &s, &c);
    double2 a = data[i0];
    double2 b = cmul(make_double2(c, s), data[i1]);
    data[i0] = cadd(a, b);
    data[i1] = csub(a, b);
}
