// shape modelled on: gamma correction with gain of 8-bit grey images (OpenCV's LUT-based gamma, ImageMagick's -gamma and -level, NPP's nppiGammaFwd and the ISP gamma stages of camera pipelines): a 2-D grid with a thread per pixel, rows src_pitch and dst_pitch bytes apart, out = gain * 255 * (in / 255)^(1 / gamma), rounded and clamped to a byte, written from scratch for kt-tui's corpus
__global__ void gamma_gain(const unsigned char *src, int src_pitch, unsigned char *dst, int dst_pitch, int width, int height, float gamma, float gain)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    const float in = src[(size_t)y * src_pitch + x] * (1.0f / 255.0f);
    const float out = gain * 255.0f * powf(in, 1.0f / gamma);
    dst[(size_t)y * dst_pitch + x] = (unsigned char)fminf(out + 0.5f, 255.0f);
}
