// shape modelled on: NVIDIA cuda-samples / CUDA guide cudaMallocPitch examples (rows found by a byte pitch), written from scratch for kt-tui's corpus
__global__ void scale_pitched(float *img, size_t pitch, int width, int height, float gain)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        float *row = (float *)((char *)img + y * pitch);
        row[x] = row[x] * gain;
    }
}
