// shape modelled on: PyTorch ATen's reflection padding (aten/src/ATen/native/cuda/ReflectionPad.cu, torch.nn.ReflectionPad2d: each plane grows by pad_l + pad_r columns and pad_t + pad_b rows that mirror the input without repeating its edge, every pad below the input's size), one thread per output element on a 3-D grid of columns, rows and planes, templated on the element type as ATen's is, written from scratch for kt-tui's corpus
template <typename scalar_t>
__global__ void reflection_pad2d(const scalar_t *in, scalar_t *out, int planes, int height, int width, int pad_l,
                                 int pad_r, int pad_t, int pad_b)
{
    const int out_w = width + pad_l + pad_r;
    const int out_h = height + pad_t + pad_b;
    const int ox = blockIdx.x * blockDim.x + threadIdx.x;
    const int oy = blockIdx.y * blockDim.y + threadIdx.y;
    const int p = blockIdx.z * blockDim.z + threadIdx.z;
    if (ox >= out_w || oy >= out_h || p >= planes)
        return;
    int ix = abs(ox - pad_l);
    if (ix >= width)
        ix = 2 * (width - 1) - ix;
    int iy = abs(oy - pad_t);
    if (iy >= height)
        iy = 2 * (height - 1) - iy;
    out[((size_t)p * out_h + oy) * out_w + ox] = in[((size_t)p * height + iy) * width + ix];
}
