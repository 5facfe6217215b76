// shape modelled on: NVIDIA cuda-samples BlackScholes (grid-stride loop over options, call and put prices from price, strike and years), written from scratch for kt-tui's corpus
__device__ inline float cnd(float d)
{
    const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f, a4 = -1.821255978f, a5 = 1.330274429f;
    float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float c = 0.3989422804f * expf(-0.5f * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
    return d > 0 ? 1.0f - c : c;
}

__global__ void black_scholes(float *call, float *put, const float *price, const float *strike, const float *years,
                              float riskfree, float volatility, int noptions)
{
    for (int opt = blockIdx.x * blockDim.x + threadIdx.x; opt < noptions; opt += blockDim.x * gridDim.x) {
        float s = price[opt], x = strike[opt], t = years[opt];
        float sqrt_t = sqrtf(t);
        float d1 = (logf(s / x) + (riskfree + 0.5f * volatility * volatility) * t) / (volatility * sqrt_t);
        float d2 = d1 - volatility * sqrt_t;
        float expRT = expf(-riskfree * t);
        call[opt] = s * cnd(d1) - x * expRT * cnd(d2);
        put[opt] = x * expRT * (1.0f - cnd(d2)) - s * (1.0f - cnd(d1));
    }
}
