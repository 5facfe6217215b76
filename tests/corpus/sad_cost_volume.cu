// shape modelled on: the matching-cost volume of stereo block matchers (OpenCV's StereoBM / libSGM cost computation, PSMNet-style cost volumes: for every disparity d, the sum of absolute differences between a window of the left image and the right image shifted d pixels left, borders clamped), one thread per (x, y, d) on a 3-D grid, 8-bit images with rows `step` bytes apart, written from scratch for kt-tui's corpus
__global__ void sad_cost_volume(const unsigned char *left, const unsigned char *right, int step, unsigned short *cost,
                                int width, int height, int max_disp, int radius)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int d = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= width || y >= height || d >= max_disp)
        return;
    unsigned int sad = 0;
    for (int dy = -radius; dy <= radius; dy++) {
        const int yy = min(max(y + dy, 0), height - 1);
        for (int dx = -radius; dx <= radius; dx++) {
            const int xl = min(max(x + dx, 0), width - 1);
            const int xr = max(xl - d, 0);
            sad += abs((int)left[yy * step + xl] - (int)right[yy * step + xr]);
        }
    }
    cost[((size_t)d * height + y) * width + x] = (unsigned short)min(sad, 65535u);
}
