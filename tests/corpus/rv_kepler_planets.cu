// shape modelled on: the radial-velocity model of exoplanet fitting codes (RadVel's rv_drive over its C Kepler solver, the Keplerian RV curves of exoplanet / Exo-Striker): a thread per observation time, a loop over the planets, the mean anomaly 2 pi (t - tp) / per reduced to [-pi, pi], Kepler's equation E - e sin E = M solved by Newton from Danby's start until the step is below tol or maxiter steps, the true anomaly from E, rv = sum of k (cos(nu + omega) + e cos omega), written from scratch for kt-tui's corpus
__global__ void rv_drive(const double *t, int nt, const double *per, const double *tp, const double *e,
                         const double *omega, const double *k, int nplanets, double tol, int maxiter, double *rv)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nt)
        return;
    const double two_pi = 6.283185307179586;
    const double ti = t[i];
    double sum = 0.0;
    for (int p = 0; p < nplanets; ++p) {
        const double ecc = e[p];
        const double m = remainder(two_pi * (ti - tp[p]) / per[p], two_pi);
        double E = m + copysign(0.85 * ecc, sin(m));
        for (int it = 0; it < maxiter; ++it) {
            const double step = (E - ecc * sin(E) - m) / (1.0 - ecc * cos(E));
            E -= step;
            if (fabs(step) < tol)
                break;
        }
        const double nu = 2.0 * atan2(sqrt(1.0 + ecc) * sin(0.5 * E), sqrt(1.0 - ecc) * cos(0.5 * E));
        sum += k[p] * (cos(nu + omega[p]) + ecc * cos(omega[p]));
    }
    rv[i] = sum;
}
