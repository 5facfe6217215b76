// shape modelled on: strided 3-D image views (ITK / VTK-m / cudaPitchedPtr volumes passed as element strides per row and per slice), written from scratch for kt-tui's corpus
// out = a * in + out over an nx x ny x nz box of two volumes with the same strides
__global__ void volume_axpy(float *out, const float *in, float a, int nx, int ny, int nz, int row_stride,
                            int slice_stride)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x < nx && y < ny && z < nz) {
        size_t at = (size_t)z * slice_stride + (size_t)y * row_stride + x;
        out[at] = a * in[at] + out[at];
    }
}
