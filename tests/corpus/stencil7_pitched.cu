// shape modelled on: 3-D finite-difference stencils on cudaMalloc3D-style pitched grids with a halo of one (Micikevicius, "3D Finite Difference Computation on GPUs using CUDA"; rows `pitch` elements apart), written from scratch for kt-tui's corpus
// in and out hold (nz + 2) planes of (ny + 2) rows of `pitch` floats; the interior point (i, j, k) is at column i + 1
__global__ void stencil7_pitched(const float *in, float *out, int nx, int ny, int nz, int pitch, float c0, float c1)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z * blockDim.z + threadIdx.z;
    if (i < nx && j < ny && k < nz) {
        int plane = (ny + 2) * pitch;
        int at = (k + 1) * plane + (j + 1) * pitch + (i + 1);
        out[at] = c0 * in[at] + c1 * (in[at - 1] + in[at + 1] + in[at - pitch] + in[at + pitch]
                                      + in[at - plane] + in[at + plane]);
    }
}
