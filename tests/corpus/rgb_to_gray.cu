// shape modelled on: PMPP textbook ch.3 colorToGreyscaleConversion (interleaved RGB, CHANNELS define), written from scratch for kt-tui's corpus
#define CHANNELS 3
__global__ void rgb_to_gray(unsigned char *gray, const unsigned char *rgb, int width, int height)
{
    int col = threadIdx.x + blockIdx.x * blockDim.x;
    int row = threadIdx.y + blockIdx.y * blockDim.y;
    if (col < width && row < height) {
        int g = row * width + col;
        int c = g * CHANNELS;
        gray[g] = (unsigned char)(0.21f * rgb[c] + 0.71f * rgb[c + 1] + 0.07f * rgb[c + 2]);
    }
}
