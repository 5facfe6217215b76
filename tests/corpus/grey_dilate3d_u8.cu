// shape modelled on: 3-D grey-level dilation of volume-image libraries (scipy.ndimage.grey_dilation / cuCIM morphology with a cube of side 2r + 1: each voxel the largest of its neighbourhood, clipped at the volume's faces), one thread per voxel on a 3-D grid, written from scratch for kt-tui's corpus
__global__ void grey_dilate3d(const unsigned char *in, unsigned char *out, int nx, int ny, int nz, int r)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= nx || y >= ny || z >= nz)
        return;
    unsigned char m = 0;
    for (int dz = -r; dz <= r; ++dz) {
        const int zz = z + dz;
        if (zz < 0 || zz >= nz)
            continue;
        for (int dy = -r; dy <= r; ++dy) {
            const int yy = y + dy;
            if (yy < 0 || yy >= ny)
                continue;
            for (int dx = -r; dx <= r; ++dx) {
                const int xx = x + dx;
                if (xx >= 0 && xx < nx) {
                    const unsigned char v = in[((size_t)zz * ny + yy) * nx + xx];
                    m = v > m ? v : m;
                }
            }
        }
    }
    out[((size_t)z * ny + y) * nx + x] = m;
}
