// shape modelled on: the spectral step of an FFT Poisson solver on a periodic 2-D box (NVIDIA's cuFFT Poisson examples, the k-space solve of particle-mesh codes such as GROMACS's PME solve or HOOMD's PPPM, between a forward D2Z and an inverse Z2D): the half spectrum of the R2C layout, nx rows of ny / 2 + 1 complex doubles, the row's wavenumber wrapped (i - nx past nx / 2), phi = -rho / (k^2 nx ny) with the zero mode set to 0, box lengths lx and ly, written from scratch for kt-tui's corpus
__global__ void poisson_solve_r2c(const double2 *rho_hat, int nx, int ny, double lx, double ly, double2 *phi_hat)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    const int nyh = ny / 2 + 1;
    if (j >= nyh || i >= nx)
        return;
    const double two_pi = 6.283185307179586;
    const int fi = i <= nx / 2 ? i : i - nx;
    const double kx = two_pi * fi / lx;
    const double ky = two_pi * j / ly;
    const double k2 = kx * kx + ky * ky;
    const double s = k2 > 0.0 ? -1.0 / (k2 * (double)nx * (double)ny) : 0.0;
    const size_t idx = (size_t)i * nyh + j;
    const double2 r = rho_hat[idx];
    phi_hat[idx] = make_double2(r.x * s, r.y * s);
}
