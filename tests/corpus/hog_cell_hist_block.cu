// shape modelled on: the cell histograms of HOG descriptors (Dalal & Triggs; OpenCV's cuda::HOG: each CELL x CELL cell of an 8-bit grey image, gradients by centred differences with the border replicated, each pixel's gradient magnitude voted into NBINS unsigned-orientation bins over [0, pi), split linearly between the two nearest bin centres, the last bin wrapping to the first), one block per cell on a 2-D grid of width / CELL x height / CELL cells (partial cells at the right and bottom dropped), the block's threads striding over the cell's pixels and voting into a shared histogram with atomicAdd, image rows `step` bytes apart, written from scratch for kt-tui's corpus
#define CELL 8
#define NBINS 9
#define PI_F 3.14159265358979f

__global__ void hog_cell_hist(const unsigned char *img, int step, int width, int height, float *hist)
{
    __shared__ float bins[NBINS];
    const int cells_x = width / CELL;
    const int cx = blockIdx.x;
    const int cy = blockIdx.y;
    if (cx >= cells_x || cy >= height / CELL)
        return;
    for (int b = threadIdx.x; b < NBINS; b += blockDim.x)
        bins[b] = 0.0f;
    __syncthreads();
    for (int p = threadIdx.x; p < CELL * CELL; p += blockDim.x) {
        const int x = cx * CELL + p % CELL;
        const int y = cy * CELL + p / CELL;
        const unsigned char *row = img + (size_t)y * step;
        const float gx = (float)row[min(x + 1, width - 1)] - (float)row[max(x - 1, 0)];
        const float below = (float)img[(size_t)min(y + 1, height - 1) * step + x];
        const float above = (float)img[(size_t)max(y - 1, 0) * step + x];
        const float gy = below - above;
        const float mag = sqrtf(gx * gx + gy * gy);
        float angle = atan2f(gy, gx);
        if (angle < 0.0f)
            angle += PI_F;
        const float pos = angle * (NBINS / PI_F) - 0.5f;
        const int b0 = (int)floorf(pos);
        const float frac = pos - b0;
        atomicAdd(&bins[(b0 + NBINS) % NBINS], mag * (1.0f - frac));
        atomicAdd(&bins[(b0 + 1) % NBINS], mag * frac);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < NBINS; b += blockDim.x)
        hist[((size_t)cy * cells_x + cx) * NBINS + b] = bins[b];
}
