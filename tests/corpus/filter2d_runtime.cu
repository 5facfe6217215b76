// shape modelled on: OpenCV cv::cuda::createLinearFilter / NPP nppiFilter naive 2-D filters (a runtime kw x kh kernel anchored at its centre, borders replicated), written from scratch for kt-tui's corpus
__global__ void filter2d(float *dst, const float *src, const float *kern, int width, int height, int kw, int kh)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    int ax = kw / 2, ay = kh / 2;
    float sum = 0.0f;
    for (int j = 0; j < kh; j++) {
        int sy = min(max(y + j - ay, 0), height - 1);
        for (int i = 0; i < kw; i++) {
            int sx = min(max(x + i - ax, 0), width - 1);
            sum += kern[j * kw + i] * src[sy * width + sx];
        }
    }
    dst[y * width + x] = sum;
}
