// shape modelled on: nearest-neighbour resize of an interleaved image (OpenCV's cuda::resize with INTER_NEAREST, NPP's nppiResize_8u_C3R with NPPI_INTER_NN): template <typename T> over the pixel type with unsigned char, unsigned short and float instantiated, cn channels a pixel, a 2-D grid over the destination pixels, source and destination rows src_step and dst_step elements apart, the source pixel at floor(x * src_w / dst_w) clamped to the last column (rows alike), written from scratch for kt-tui's corpus
template <typename T>
__global__ void resize_nearest(const T *src, int src_step, int src_w, int src_h, T *dst, int dst_step, int dst_w,
                               int dst_h, int cn)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dst_w || y >= dst_h)
        return;
    const float fx = (float)src_w / dst_w;
    const float fy = (float)src_h / dst_h;
    const int sx = min((int)(x * fx), src_w - 1);
    const int sy = min((int)(y * fy), src_h - 1);
    const T *s = src + (size_t)sy * src_step + (size_t)sx * cn;
    T *d = dst + (size_t)y * dst_step + (size_t)x * cn;
    for (int c = 0; c < cn; ++c)
        d[c] = s[c];
}

template __global__ void resize_nearest<unsigned char>(const unsigned char *, int, int, int, unsigned char *, int, int,
                                                       int, int);
template __global__ void resize_nearest<unsigned short>(const unsigned short *, int, int, int, unsigned short *, int,
                                                        int, int, int);
template __global__ void resize_nearest<float>(const float *, int, int, int, float *, int, int, int, int);
