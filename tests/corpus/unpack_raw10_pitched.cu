// shape modelled on: unpacking MIPI CSI-2 RAW10 camera frames to 16 bits (libcamera's / Jetson ISP and NVIDIA Argus RAW10 readers, OpenCV's and NPP-style Bayer pre-processing): four pixels in five bytes, bytes 0 to 3 the high 8 bits of pixels 0 to 3 and byte 4 their low 2 bits (pixel k in bits 2k and 2k + 1), a thread per group of four pixels, the black level subtracted and clamped at 0, rows src_stride bytes and dst_pitch uint16 elements apart, written from scratch for kt-tui's corpus
__global__ void unpack_raw10(const unsigned char *src, int src_stride, int width, int height, int black_level,
                             unsigned short *dst, int dst_pitch)
{
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (g >= width / 4 || y >= height)
        return;
    const unsigned char *s = src + (size_t)y * src_stride + 5 * g;
    unsigned short *d = dst + (size_t)y * dst_pitch + 4 * g;
    const unsigned int low = s[4];
    for (int k = 0; k < 4; ++k) {
        const int v = ((int)s[k] << 2) | ((low >> (2 * k)) & 3u);
        d[k] = (unsigned short)max(v - black_level, 0);
    }
}
