// shape modelled on: OpenCV's Hough line transform (cv::HoughLines and cv::cuda::HoughLinesDetector's vote: every nonzero pixel of an 8-bit edge mask votes once per angle into a numangle x numrho accumulator at r = round((x cos theta + y sin theta) / rho) + (numrho - 1) / 2, numrho = ((width + height) * 2 + 1) / rho, with atomicAdd), one thread per pixel, mask rows `step` bytes apart, written from scratch for kt-tui's corpus
__global__ void hough_lines_vote(const unsigned char *mask, int step, int width, int height, int *accum, int numangle,
                                 float rho, float theta)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    if (mask[(size_t)y * step + x] == 0)
        return;
    const int numrho = (int)(((width + height) * 2 + 1) / rho);
    const float irho = 1.0f / rho;
    for (int n = 0; n < numangle; n++) {
        float s, c;
        sincosf(n * theta, &s, &c);
        int r = __float2int_rn((x * c + y * s) * irho);
        r += (numrho - 1) / 2;
        atomicAdd(&accum[n * numrho + r], 1);
    }
}
