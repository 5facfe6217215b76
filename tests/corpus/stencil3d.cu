// shape modelled on: PolyBench-GPU 3DConvolution convolution3D_kernel and 7-point Jacobi stencils, written from scratch for kt-tui's corpus
// interior points only; boundary points of out are left as they are
__global__ void jacobi7(float *out, const float *in, int nx, int ny, int nz, float c0, float c1)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z * blockDim.z + threadIdx.z;
    if (i > 0 && i < nx - 1 && j > 0 && j < ny - 1 && k > 0 && k < nz - 1) {
        int idx = (k * ny + j) * nx + i;
        out[idx] = c0 * in[idx]
                 + c1 * (in[idx - 1] + in[idx + 1]
                       + in[idx - nx] + in[idx + nx]
                       + in[idx - nx * ny] + in[idx + nx * ny]);
    }
}
