// shape modelled on: discount factors read off a yield curve by log-linear interpolation (QuantLib's InterpolatedDiscountCurve with LogLinear, the curve lookups of GPU XVA and swap-pricing codes): template <typename Real> with float and double instantiated, a thread per query time, a binary search of the npillars ascending pillar times for the segment (the first or last one beyond the ends, which extrapolates), exp of the linear interpolation of the log discount factors, written from scratch for kt-tui's corpus
template <typename Real>
__global__ void discount_loglinear(const Real *pillar_t, const Real *pillar_df, int npillars, const Real *t, int n,
                                   Real *df)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const Real x = t[i];
    int lo = 0, hi = npillars - 1;
    while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        if (pillar_t[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    const Real t0 = pillar_t[lo], t1 = pillar_t[lo + 1];
    const Real l0 = log(pillar_df[lo]), l1 = log(pillar_df[lo + 1]);
    df[i] = exp(l0 + (l1 - l0) * (x - t0) / (t1 - t0));
}

template __global__ void discount_loglinear<float>(const float *, const float *, int, const float *, int, float *);
template __global__ void discount_loglinear<double>(const double *, const double *, int, const double *, int,
                                                    double *);
