// shape modelled on: unsharp masking with a threshold (GIMP's and ImageMagick's -unsharp radius x sigma + amount + threshold, OpenCV's documented unsharp recipe, NPP's sharpen filters): a 2-D grid with a thread per pixel of a float image in rows src_pitch and dst_pitch floats apart, a 3 x 3 box blur with clamped borders, the detail c - blur added amount times where it exceeds threshold, written from scratch for kt-tui's corpus
__global__ void unsharp_mask(const float *src, int src_pitch, float *dst, int dst_pitch, int width, int height, float amount, float threshold)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    float blur = 0.0f;
    for (int dy = -1; dy <= 1; ++dy) {
        const int yy = min(max(y + dy, 0), height - 1);
        for (int dx = -1; dx <= 1; ++dx) {
            const int xx = min(max(x + dx, 0), width - 1);
            blur += src[(size_t)yy * src_pitch + xx];
        }
    }
    const float c = src[(size_t)y * src_pitch + x];
    const float detail = c - blur * (1.0f / 9.0f);
    dst[(size_t)y * dst_pitch + x] = fabsf(detail) > threshold ? c + amount * detail : c;
}
