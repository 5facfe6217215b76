// shape modelled on: 2-D fftshift / ifftshift of a spectrum (numpy / CuPy fftshift and MATLAB's on the GPU: element (y, x) moves to ((y + height / 2) % height, (x + width / 2) % width), the inverse by the other half on odd sizes) over complex float images whose rows are `pitch` bytes apart (cudaMallocPitch), as a 2-D grid-stride loop, written from scratch for kt-tui's corpus
__global__ void fftshift2d_pitched(const float2 *in, float2 *out, size_t pitch, int width, int height, int inverse)
{
    // fftshift moves by half the size rounded down, ifftshift by half rounded up
    const int shift_x = inverse ? width - width / 2 : width / 2;
    const int shift_y = inverse ? height - height / 2 : height / 2;
    const int stride_x = blockDim.x * gridDim.x;
    const int stride_y = blockDim.y * gridDim.y;
    for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < height; y += stride_y) {
        const int ys = (y + shift_y) % height;
        const float2 *src = (const float2 *)((const char *)in + y * pitch);
        float2 *dst = (float2 *)((char *)out + ys * pitch);
        for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < width; x += stride_x) {
            const int xs = (x + shift_x) % width;
            dst[xs] = src[x];
        }
    }
}
