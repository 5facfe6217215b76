// shape modelled on: CT window/level display mapping of medical imaging viewers (ITK's IntensityWindowingImageFilter, 3D Slicer's and OHIF's window/level: stored values times the rescale slope plus intercept, clamped to center +- width / 2 and scaled to 0..255), a uint16 volume with rows pitch elements apart and slices slice_pitch elements apart, one thread per voxel on a 3-D grid, a packed uint8 output, written from scratch for kt-tui's corpus
__global__ void ct_window(const unsigned short *vol, int width, int height, int depth, int pitch, int slice_pitch, float slope,
                          float intercept, float center, float window, unsigned char *out)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= width || y >= height || z >= depth)
        return;
    const float hu = vol[(size_t)z * slice_pitch + (size_t)y * pitch + x] * slope + intercept;
    const float lo = center - 0.5f * window;
    float t = (hu - lo) / window;
    t = fminf(fmaxf(t, 0.0f), 1.0f);
    out[((size_t)z * height + y) * width + x] = (unsigned char)(t * 255.0f + 0.5f);
}
