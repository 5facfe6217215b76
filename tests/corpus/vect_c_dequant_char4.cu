// shape modelled on: the int8 tensor reformat of cuDNN / TensorRT (CUDNN_TENSOR_NCHW_VECT_C, TensorRT's kCHW4: an int8 N x C x H x W tensor stored as N x (C / 4) x H x W char4, each char4 four consecutive channels of one pixel) back to planar NCHW float with a symmetric per-channel scale, one thread per (pixel, channel group) on a 2-D grid and one grid layer per image, written from scratch for kt-tui's corpus
__global__ void vect_c_to_nchw(const char4 *in, const float *scale, int N, int C, int HW, float *out)
{
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    const int g = blockIdx.y * blockDim.y + threadIdx.y;
    const int n = blockIdx.z;
    const int groups = C / 4;
    if (p >= HW || g >= groups || n >= N)
        return;
    const char4 v = in[((size_t)n * groups + g) * HW + p];
    const int c = 4 * g;
    float *o = out + ((size_t)n * C + c) * HW + p;
    o[0] = scale[c] * (float)v.x;
    o[HW] = scale[c + 1] * (float)v.y;
    o[2 * (size_t)HW] = scale[c + 2] * (float)v.z;
    o[3 * (size_t)HW] = scale[c + 3] * (float)v.w;
}
