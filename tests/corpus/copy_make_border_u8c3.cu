// shape modelled on: padding a 3-channel 8-bit image with a replicated border (OpenCV's cv::cuda::copyMakeBorder with BORDER_REPLICATE on CV_8UC3, NPP's nppiCopyReplicateBorder_8u_C3R with nTopBorderHeight and nLeftBorderWidth): a thread per destination pixel of dst_width x dst_height, the source pixel (x - left, y - top) clamped into width x height, three bytes a pixel, rows src_step and dst_step bytes apart, written from scratch for kt-tui's corpus
__global__ void copy_border_replicate_c3(const unsigned char *src, int src_step, int width, int height, int top,
                                         int left, unsigned char *dst, int dst_step, int dst_width, int dst_height)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dst_width || y >= dst_height)
        return;
    const int sx = min(max(x - left, 0), width - 1);
    const int sy = min(max(y - top, 0), height - 1);
    const unsigned char *s = src + (size_t)sy * src_step + 3 * sx;
    unsigned char *d = dst + (size_t)y * dst_step + 3 * x;
    d[0] = s[0];
    d[1] = s[1];
    d[2] = s[2];
}
