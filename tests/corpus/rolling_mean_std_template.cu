// shape modelled on: cuDF's fixed-size rolling window (Series.rolling(window) with min_periods = window: output i is the mean and the sample standard deviation (ddof = 1) of x[i] .. x[i + window - 1], only the n - window + 1 full windows), one thread per output, templated on the value type, written from scratch for kt-tui's corpus
template <typename T>
__global__ void rolling_mean_std(const T *x, int n, int window, T *mean, T *std)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > n - window)
        return;
    T s = 0;
    T s2 = 0;
    for (int k = 0; k < window; ++k) {
        const T v = x[i + k];
        s += v;
        s2 += v * v;
    }
    const T m = s / window;
    const T var = (s2 - s * m) / (window - 1);
    mean[i] = m;
    std[i] = var > 0 ? sqrt(var) : (T)0;
}
