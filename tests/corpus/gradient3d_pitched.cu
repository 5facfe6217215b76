// shape modelled on: CUDA Programming Guide cudaMalloc3D / cudaPitchedPtr volume kernels (rows `pitch` elements apart, z slices pitch * ny apart), written from scratch for kt-tui's corpus
// gradient magnitude by central differences, the neighbour clamped at the faces; grad has vol's layout
__global__ void gradient3d(float *grad, const float *vol, int nx, int ny, int nz, int pitch, float inv_h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= nx || y >= ny || z >= nz)
        return;
    size_t slice = (size_t)pitch * ny;
    size_t at = z * slice + (size_t)y * pitch + x;
    float gx = vol[at - x + min(x + 1, nx - 1)] - vol[at - x + max(x - 1, 0)];
    float gy = vol[at + (min(y + 1, ny - 1) - y) * pitch] - vol[at - (y - max(y - 1, 0)) * pitch];
    float gz = vol[at + (min(z + 1, nz - 1) - z) * slice] - vol[at - (z - max(z - 1, 0)) * slice];
    grad[at] = 0.5f * inv_h * sqrtf(gx * gx + gy * gy + gz * gz);
}
