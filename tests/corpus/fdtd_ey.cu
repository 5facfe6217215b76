// shape modelled on: PolyBench/GPU fdtd-2d (step 1: ey from hz; row 0 takes the source value of time step t), written from scratch for kt-tui's corpus
__global__ void fdtd_ey(float *ey, const float *hz, const float *source, int nx, int ny, int t)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < nx && j < ny) {
        if (i == 0)
            ey[j] = source[t];
        else
            ey[i * ny + j] -= 0.5f * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
    }
}
