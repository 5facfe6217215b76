// shape modelled on: the row pass of an integral image (NPP's nppiIntegral_8u32s_C1R, OpenCV's cuda::integral horizontal pass): a thread per source row y of a width x height 8-bit image rows src_step bytes apart, the running sum written to row y + 1 of an int image of (height + 1) rows of width + 1, dst_step ints apart, column 0 and row 0 zero (row 0 written by the first row's thread), written from scratch for kt-tui's corpus
__global__ void integral_rows(const unsigned char *src, int src_step, int width, int height, int *dst, int dst_step)
{
    const int y = blockIdx.x * blockDim.x + threadIdx.x;
    if (y >= height)
        return;
    if (y == 0)
        for (int x = 0; x <= width; ++x)
            dst[x] = 0;
    const unsigned char *s = src + (size_t)y * src_step;
    int *d = dst + (size_t)(y + 1) * dst_step;
    int sum = 0;
    d[0] = 0;
    for (int x = 0; x < width; ++x) {
        sum += s[x];
        d[x + 1] = sum;
    }
}
