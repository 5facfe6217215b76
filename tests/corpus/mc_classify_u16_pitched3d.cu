// shape modelled on: the voxel classification pass of marching cubes (the CUDA samples' marchingCubes classifyVoxel, VTK-m's and Open3D's GPU isosurface extraction: for each cell between 2 x 2 x 2 samples, an 8-bit case index with bit k set where corner k lies below the isovalue; cases 0 and 255 make no triangles and the active cells are counted), 16-bit CT samples with rows pitch and slices slice_pitch elements apart, one thread per cell on a 3-D grid, an atomicAdd for the count, written from scratch for kt-tui's corpus
__global__ void classify_cells(const unsigned short *vol, int nx, int ny, int nz, int pitch, int slice_pitch,
                               float iso, unsigned char *cases, int *active)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= nx - 1 || y >= ny - 1 || z >= nz - 1)
        return;
    unsigned int idx = 0;
    for (int k = 0; k < 8; ++k) {
        // corners in the order 0..3 around the lower face, 4..7 around the upper
        const int cx = x + (((k & 1) ^ ((k >> 1) & 1)));
        const int cy = y + ((k >> 1) & 1);
        const int cz = z + (k >> 2);
        const float v = (float)vol[(size_t)cz * slice_pitch + (size_t)cy * pitch + cx];
        idx |= (v < iso ? 1u : 0u) << k;
    }
    cases[((size_t)z * (ny - 1) + y) * (nx - 1) + x] = (unsigned char)idx;
    if (idx != 0 && idx != 255)
        atomicAdd(active, 1);
}
