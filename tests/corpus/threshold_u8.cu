// shape modelled on: NPP-style image threshold kernels on 8-bit images with a row pitch, written from scratch for kt-tui's corpus
__global__ void threshold(const unsigned char *src, unsigned char *dst, int width, int height, int pitch, unsigned char level)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height)
        dst[y * width + x] = src[y * pitch + x] > level ? 255 : 0;
}
