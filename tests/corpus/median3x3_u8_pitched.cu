// shape modelled on: the 3 x 3 median filter of image libraries (OpenCV's cv::cuda::createMedianFilter, NPP's nppiFilterMedian_8u_C1R with a 3 x 3 mask): each output pixel the median of its 3 x 3 neighbourhood, neighbours past the border replicated from the edge, 8-bit grey images whose source and destination rows lie at their own pitches, the nine values sorted in registers, one thread per pixel on a 2-D grid, written from scratch for kt-tui's corpus
__global__ void median3x3(const unsigned char *src, int src_pitch, unsigned char *dst, int dst_pitch, int width,
                          int height)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    unsigned char v[9];
    int n = 0;
    for (int dy = -1; dy <= 1; ++dy) {
        const int yy = min(max(y + dy, 0), height - 1);
        const unsigned char *row = src + (size_t)yy * src_pitch;
        for (int dx = -1; dx <= 1; ++dx)
            v[n++] = row[min(max(x + dx, 0), width - 1)];
    }
    // insertion sort: nine values are few
    for (int i = 1; i < 9; ++i) {
        const unsigned char key = v[i];
        int j = i - 1;
        while (j >= 0 && v[j] > key) {
            v[j + 1] = v[j];
            --j;
        }
        v[j + 1] = key;
    }
    dst[(size_t)y * dst_pitch + x] = v[4];
}
