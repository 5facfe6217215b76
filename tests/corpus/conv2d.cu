// shape modelled on: KernelTuner/kernel_tuner examples/cuda/convolution.cu (naive convolution over an image padded by the filter radius), written from scratch for kt-tui's corpus
#define FILTER_W 5
#define FILTER_H 5
__global__ void convolve2d(float *output, const float *input, const float *filter, int image_w, int image_h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int in_w = image_w + FILTER_W - 1;
    if (x < image_w && y < image_h) {
        float sum = 0.0f;
        for (int j = 0; j < FILTER_H; j++)
            for (int i = 0; i < FILTER_W; i++)
                sum += input[(y + j) * in_w + (x + i)] * filter[j * FILTER_W + i];
        output[y * image_w + x] = sum;
    }
}
