// shape modelled on: CUDA samples simpleTexture3D / volumeRender's tex3D fetch done by hand (trilinear interpolation in a cudaMalloc3D volume: rows `pitch` bytes apart, slices pitch * ysize bytes apart, coordinates clamped to the volume), written from scratch for kt-tui's corpus
__device__ float voxel(const float *vol, size_t pitch, int ysize, int x, int y, int z)
{
    return ((const float *)((const char *)vol + ((size_t)z * ysize + y) * pitch))[x];
}

// point p at (px[p], py[p], pz[p]) in voxel units; every size is at least 2
__global__ void sample_trilinear(float *values, const float *px, const float *py, const float *pz, int npoints,
                                 const float *volume, size_t pitch, int xsize, int ysize, int zsize)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npoints)
        return;
    float x = fminf(fmaxf(px[p], 0.0f), xsize - 1.0f);
    float y = fminf(fmaxf(py[p], 0.0f), ysize - 1.0f);
    float z = fminf(fmaxf(pz[p], 0.0f), zsize - 1.0f);
    int x0 = min((int)x, xsize - 2), y0 = min((int)y, ysize - 2), z0 = min((int)z, zsize - 2);
    float fx = x - x0, fy = y - y0, fz = z - z0;
    float c[2][2];
    for (int dz = 0; dz < 2; dz++)
        for (int dy = 0; dy < 2; dy++) {
            float lo = voxel(volume, pitch, ysize, x0, y0 + dy, z0 + dz);
            float hi = voxel(volume, pitch, ysize, x0 + 1, y0 + dy, z0 + dz);
            c[dz][dy] = lo + fx * (hi - lo);
        }
    float c0 = c[0][0] + fy * (c[0][1] - c[0][0]);
    float c1 = c[1][0] + fy * (c[1][1] - c[1][0]);
    values[p] = c0 + fz * (c1 - c0);
}
