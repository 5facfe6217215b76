// shape modelled on: per-tensor affine int8 quantization kernels (PyTorch quantize_per_tensor_affine, lightseq quantize_tensor), written from scratch for kt-tui's corpus
__global__ void quantize(signed char *q, const float *x, float scale, int zero_point, int qmin, int qmax, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int v = __float2int_rn(x[i] / scale) + zero_point;
        q[i] = (signed char)max(qmin, min(qmax, v));
    }
}
