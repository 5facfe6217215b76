// shape modelled on: maximum intensity projection of volume renderers over a cudaMalloc3D volume (CUDA samples volumeRender's cudaPitchedPtr, 3D Slicer / VTK-m MIP: the brightest voxel along z of each (x, y) ray of a 16-bit CT volume; the volume's rows pitch bytes apart and its slices pitch * height bytes apart, the image's rows img_pitch bytes apart), written from scratch for kt-tui's corpus
__global__ void mip_z(unsigned short *image, size_t img_pitch, const unsigned short *volume, size_t pitch, int width,
                      int height, int depth)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    const char *slice = (const char *)volume + y * pitch;
    unsigned short best = 0;
    for (int z = 0; z < depth; z++) {
        unsigned short v = ((const unsigned short *)slice)[x];
        if (v > best)
            best = v;
        slice += pitch * height;
    }
    ((unsigned short *)((char *)image + y * img_pitch))[x] = best;
}
