// shape modelled on: the int32-accumulator output stage of integer inference runtimes (TFLite's MultiplyByQuantizedMultiplier, gemmlowp's fixed-point output pipeline: acc plus the channel's bias, times a per-channel Q31 multiplier, a rounding right shift by 31 + shift, plus the output zero point, saturated to int8), an NCHW tensor whose channel is (i / hw) % channels, one thread per element, written from scratch for kt-tui's corpus
__global__ void requantize(const int *acc, const int *bias, const int *multiplier, int n, int channels, int hw, int shift,
                           int zero_point, signed char *out)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const int c = (i / hw) % channels;
    const long long prod = (long long)(acc[i] + bias[c]) * multiplier[c];
    const int total = 31 + shift;
    const long long r = (prod + (1LL << (total - 1))) >> total;
    const int v = (int)r + zero_point;
    out[i] = (signed char)max(-128, min(127, v));
}
