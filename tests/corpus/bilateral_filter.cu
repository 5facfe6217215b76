// shape modelled on: the CUDA samples' bilateral filter and OpenCV's cuda::bilateralFilter (a (2r + 1)^2 window of a gray 8-bit image weighted by spatial distance and by intensity difference, the window's radius a runtime argument, borders replicated, source and destination rows src_step and dst_step bytes apart), written from scratch for kt-tui's corpus
__global__ void bilateral_filter_u8(const unsigned char *src, int src_step, unsigned char *dst, int dst_step, int width,
                                    int height, int radius, float inv_two_sigma_space2, float inv_two_sigma_color2)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    const float center = src[(size_t)y * src_step + x];
    float sum = 0.0f, wsum = 0.0f;
    for (int dy = -radius; dy <= radius; dy++) {
        const int yy = min(max(y + dy, 0), height - 1);
        const unsigned char *row = src + (size_t)yy * src_step;
        for (int dx = -radius; dx <= radius; dx++) {
            const int xx = min(max(x + dx, 0), width - 1);
            const float v = row[xx];
            const float diff = v - center;
            const float w =
                __expf(-(float)(dx * dx + dy * dy) * inv_two_sigma_space2 - diff * diff * inv_two_sigma_color2);
            sum += w * v;
            wsum += w;
        }
    }
    dst[(size_t)y * dst_step + x] = (unsigned char)fminf(sum / wsum + 0.5f, 255.0f);
}
