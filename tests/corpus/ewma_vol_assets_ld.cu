// shape modelled on: RiskMetrics' exponentially weighted volatility as risk engines compute it per asset (QuantLib-style EWMA estimators, pandas' ewm(alpha = 1 - lambda, adjust = False) of squared returns: var = lambda var + (1 - lambda) r^2, seeded by the first return squared, the annualised volatility sqrt(var * periods)), one thread per asset over a returns matrix whose rows are ld apart, written from scratch for kt-tui's corpus
__global__ void ewma_vol(const float *returns, int nassets, int ntimes, int ld, float lambda, float periods, float *vol)
{
    const int a = blockIdx.x * blockDim.x + threadIdx.x;
    if (a >= nassets)
        return;
    const float *r = returns + (size_t)a * ld;
    float var = r[0] * r[0];
    for (int t = 1; t < ntimes; ++t)
        var = lambda * var + (1.0f - lambda) * r[t] * r[t];
    vol[a] = sqrtf(var * periods);
}
