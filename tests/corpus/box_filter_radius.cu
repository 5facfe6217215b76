// shape modelled on: NPP nppiFilterBox / OpenCV cv::cuda::createBoxFilter naive kernels (the mean of a (2*rx+1) x (2*ry+1) window around each pixel, runtime radii, pixels outside the image skipped), written from scratch for kt-tui's corpus
__global__ void box_filter(float *out, const float *in, int width, int height, int rx, int ry)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    float sum = 0.0f;
    int count = 0;
    for (int dy = -ry; dy <= ry; dy++) {
        int yy = y + dy;
        if (yy < 0 || yy >= height)
            continue;
        for (int dx = -rx; dx <= rx; dx++) {
            int xx = x + dx;
            if (xx >= 0 && xx < width) {
                sum += in[yy * width + xx];
                count++;
            }
        }
    }
    out[y * width + x] = sum / count;
}
