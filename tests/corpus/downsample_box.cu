// shape modelled on: integer-factor box downsampling kernels (OpenCV cuda resize INTER_AREA / image pyramid reduce: each output pixel averages a factor x factor tile), written from scratch for kt-tui's corpus
__global__ void downsample_box(const float *src, float *dst, int width, int height, int factor)
{
    int out_w = width / factor;
    int out_h = height / factor;
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= out_w || y >= out_h)
        return;
    float sum = 0.0f;
    for (int dy = 0; dy < factor; dy++)
        for (int dx = 0; dx < factor; dx++)
            sum += src[(y * factor + dy) * width + x * factor + dx];
    dst[y * out_w + x] = sum / (factor * factor);
}
