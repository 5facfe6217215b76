// shape modelled on: per-channel affine int8 quantisation of a weight or activation tensor (PyTorch's quantize_per_channel and fake_quantize_per_channel_affine on CUDA, TensorRT's and ONNX Runtime's QuantizeLinear with an axis): template <typename T> over the input type with float and double instantiated, a grid-stride loop on a long long count, channel (i / inner) % channels, q = clamp(rint(x / scale[c]) + zero_point[c], -128, 127), written from scratch for kt-tui's corpus
template <typename T>
__global__ void quantize_per_channel(const T *x, const T *scale, const int *zero_point, int channels, int inner,
                                     long long n, signed char *q)
{
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        const int c = (int)((i / inner) % channels);
        const double v = rint((double)x[i] / (double)scale[c]) + zero_point[c];
        q[i] = (signed char)fmin(fmax(v, -128.0), 127.0);
    }
}

template __global__ void quantize_per_channel<float>(const float *, const float *, const int *, int, int, long long,
                                                     signed char *);
template __global__ void quantize_per_channel<double>(const double *, const double *, const int *, int, int, long long,
                                                      signed char *);
