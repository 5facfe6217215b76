// shape modelled on: joint intensity histograms of mutual-information image registration (NiftyReg / ITK GPU metrics: pixel (x, y) of two 8-bit images adds one to bin (f * bins / 256, m * bins / 256) with a global atomicAdd; rows `pitch` bytes apart), written from scratch for kt-tui's corpus
__global__ void joint_hist(unsigned int *hist, const unsigned char *fixed_img, const unsigned char *moving_img,
                           int width, int height, int pitch, int bins)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    int f = fixed_img[y * pitch + x] * bins / 256;
    int m = moving_img[y * pitch + x] * bins / 256;
    atomicAdd(&hist[f * bins + m], 1u);
}
