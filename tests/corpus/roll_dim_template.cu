// shape modelled on: PyTorch ATen's roll kernel (aten/src/ATen/native/cuda/TensorTransformations.cu: torch.roll of a contiguous tensor along one dimension given by its size and stride, one thread per element), templated on the element type as ATen's is, written from scratch for kt-tui's corpus
template <typename scalar_t>
__global__ void roll_dim(const scalar_t *in, scalar_t *out, long long numel, int shift, long long dim_size,
                         long long stride)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= numel)
        return;
    // element i sits at position pos of the rolled dimension; it takes the input's element shift places back
    const long long pos = (i / stride) % dim_size;
    long long src = pos - shift;
    if (src < 0)
        src += dim_size;
    out[i] = in[i + (src - pos) * stride];
}
