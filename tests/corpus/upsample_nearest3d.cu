// shape modelled on: PyTorch ATen's upsample_nearest3d_out_frame (aten/src/ATen/native/cuda/UpSampleNearest3d.cu: one thread per output element of an N x C x D x H x W tensor, each output coordinate mapped to input coordinate min(floor(dst * scale), src - 1) per axis), templated on the element type as ATen's is, written from scratch for kt-tui's corpus
template <typename scalar_t>
__global__ void upsample_nearest3d_out_frame(const scalar_t *input, int dim_nc, int src_dim_d, int src_dim_h,
                                             int src_dim_w, int dst_dim_d, int dst_dim_h, int dst_dim_w,
                                             scalar_t *output, float depth_scale, float height_scale,
                                             float width_scale)
{
    const size_t dst_idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (dst_idx >= (size_t)dim_nc * dst_dim_d * dst_dim_h * dst_dim_w)
        return;
    const int dst_x = dst_idx % dst_dim_w;
    const int dst_y = (dst_idx / dst_dim_w) % dst_dim_h;
    const int dst_z = (dst_idx / ((size_t)dst_dim_w * dst_dim_h)) % dst_dim_d;
    const size_t nc = dst_idx / ((size_t)dst_dim_w * dst_dim_h * dst_dim_d);
    const int src_x = min((int)floorf(dst_x * width_scale), src_dim_w - 1);
    const int src_y = min((int)floorf(dst_y * height_scale), src_dim_h - 1);
    const int src_z = min((int)floorf(dst_z * depth_scale), src_dim_d - 1);
    output[dst_idx] = input[((nc * src_dim_d + src_z) * src_dim_h + src_y) * src_dim_w + src_x];
}
