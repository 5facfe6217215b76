// shape modelled on: one stage of an iterative radix-4 decimation-in-time FFT (the butterfly passes of VkFFT's and cuFFT's radix-4 kernels, the Stockham-free in-place form of textbook Cooley-Tukey: n / 4 butterflies a stage, each over four points stride apart inside a group of 4 * stride, the twiddles w^(k j) of w = exp(-2 pi i / (4 stride)) computed with sincospi), double complex in place, one thread per butterfly, written from scratch for kt-tui's corpus
__global__ void fft_radix4_stage(double2 *data, int n, int stride)
{
    const int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= n / 4)
        return;
    const int group = b / stride;
    const int j = b % stride;
    const size_t base = (size_t)group * 4 * stride + j;
    double2 a[4];
    a[0] = data[base];
    for (int k = 1; k < 4; ++k) {
        const double2 x = data[base + (size_t)k * stride];
        double s, c;
        sincospi(-(double)(k * j) / (2.0 * stride), &s, &c);
        a[k] = make_double2(x.x * c - x.y * s, x.x * s + x.y * c);
    }
    const double2 t0 = make_double2(a[0].x + a[2].x, a[0].y + a[2].y);
    const double2 t1 = make_double2(a[0].x - a[2].x, a[0].y - a[2].y);
    const double2 t2 = make_double2(a[1].x + a[3].x, a[1].y + a[3].y);
    // -i (a1 - a3)
    const double2 t3 = make_double2(a[1].y - a[3].y, a[3].x - a[1].x);
    data[base] = make_double2(t0.x + t2.x, t0.y + t2.y);
    data[base + stride] = make_double2(t1.x + t3.x, t1.y + t3.y);
    data[base + 2 * (size_t)stride] = make_double2(t0.x - t2.x, t0.y - t2.y);
    data[base + 3 * (size_t)stride] = make_double2(t1.x - t3.x, t1.y - t3.y);
}
