// shape modelled on: softplus with beta and a linear threshold (PyTorch's softplus_kernel / F.softplus(x, beta, threshold), cuDNN-style elementwise activations over a flat tensor): template <typename T> with float and double instantiated, a grid-stride loop over n elements, y = x where x * beta > threshold else log1p(exp(x * beta)) / beta, written from scratch for kt-tui's corpus
template <typename T>
__global__ void softplus(const T *x, long long n, T beta, T threshold, T *y)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const T v = x[i];
        const T bv = v * beta;
        y[i] = bv > threshold ? v : log1p(exp(bv)) / beta;
    }
}

template __global__ void softplus<float>(const float *, long long, float, float, float *);
template __global__ void softplus<double>(const double *, long long, double, double, double *);
