// shape modelled on: NPP nppiErode / OpenCV cv::cuda::createMorphologyFilter's separable row pass (each pixel becomes the minimum over RADIUS pixels either side along its row, the border replicated), templated on the pixel type and the radius as OpenCV's row filters are; rows src_step and dst_step elements apart, written from scratch for kt-tui's corpus
template <typename T, int RADIUS>
__global__ void erode_row(const T *src, int src_step, T *dst, int dst_step, int cols, int rows)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= cols || y >= rows)
        return;
    const T *line = src + (size_t)y * src_step;
    T m = line[x];
    for (int k = -RADIUS; k <= RADIUS; k++) {
        int xx = min(max(x + k, 0), cols - 1);
        T v = line[xx];
        if (v < m)
            m = v;
    }
    dst[(size_t)y * dst_step + x] = m;
}
