// shape modelled on: grey erosion of an 8-bit image by an arbitrary structuring element (OpenCV's cv::cuda::createMorphologyFilter(MORPH_ERODE) with a kernel Mat and an anchor, NPP's nppiErode_8u_C1R with pMask, oMaskSize and oAnchor): a thread per pixel, a kw x kh byte mask whose non-zero entries pick the taps, the anchor (ax, ay) placing it, taps outside the image skipped (a border of 255), byte rows src_step and dst_step apart, written from scratch for kt-tui's corpus
__global__ void erode_se(const unsigned char *src, int src_step, int width, int height, const unsigned char *se,
                         int kw, int kh, int ax, int ay, unsigned char *dst, int dst_step)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    unsigned int m = 255;
    for (int j = 0; j < kh; ++j) {
        const int yy = y + j - ay;
        if (yy < 0 || yy >= height)
            continue;
        for (int i = 0; i < kw; ++i) {
            const int xx = x + i - ax;
            if (se[j * kw + i] && xx >= 0 && xx < width)
                m = min(m, (unsigned int)src[(size_t)yy * src_step + xx]);
        }
    }
    dst[(size_t)y * dst_step + x] = (unsigned char)m;
}
