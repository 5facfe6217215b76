// shape modelled on: NVIDIA developer blog "How to access global memory efficiently" offset kernel, written from scratch for kt-tui's corpus
__global__ void offset_add(float *out, const float *in, float v, int n, int offset)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i + offset] + v;
}
