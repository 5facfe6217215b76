// Follows the basic 2-D convolution kernel of Kirk & Hwu, "Programming Massively Parallel Processors" (one output pixel per thread, zeros outside the image), with a fixed 3x3 filter.
// out[y][x] = sum over the 3x3 neighbourhood of in * filter, with zeros outside the image (height x width, row-major).
__global__ void conv3x3(float *out, const float *in, const float *filter, int width, int height) {
    int x = blockIdx.x * block_size_x + threadIdx.x;
    int y = blockIdx.y * block_size_y + threadIdx.y;
    if (x >= width || y >= height) {
        return;
    }
    float sum = 0.0f;
#pragma unroll
    for (int dy = -1; dy <= 1; dy++) {
#pragma unroll
        for (int dx = -1; dx <= 1; dx++) {
            int yy = y + dy;
            int xx = x + dx;
            if (yy >= 0 && yy < height && xx >= 0 && xx < width) {
                sum += in[(size_t)yy * width + xx] * filter[(dy + 1) * 3 + dx + 1];
            }
        }
    }
    out[(size_t)y * width + x] = sum;
}
