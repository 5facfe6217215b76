// shape modelled on: NVIDIA cuda-samples convolutionSeparable (row pass with KERNEL_RADIUS, clamp-free interior rows), written from scratch for kt-tui's corpus
#define KERNEL_RADIUS 8
#define KERNEL_LENGTH (2 * KERNEL_RADIUS + 1)
// src rows are padded by KERNEL_RADIUS on both sides: pitch = width + 2 * KERNEL_RADIUS
__global__ void conv_rows(float *dst, const float *src, const float *__restrict__ weights, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    int pitch = width + 2 * KERNEL_RADIUS;
    float acc = 0.0f;
    for (int k = -KERNEL_RADIUS; k <= KERNEL_RADIUS; k++)
        acc += src[y * pitch + x + KERNEL_RADIUS + k] * weights[KERNEL_RADIUS - k];
    dst[y * width + x] = acc;
}
