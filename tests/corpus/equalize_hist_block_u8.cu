// shape modelled on: histogram equalization of 8-bit grey images (OpenCV's equalizeHist and cv::cuda::equalizeHist, NPP's histogram-then-LUT pair: the 256-bin histogram, its cumulative sum, lut[v] = round((cdf(v) - cdf_min) * 255 / (npix - cdf_min)) with cdf_min the first nonzero count), a batch of images stacked row after row with rows pitch bytes apart, one block per image with the histogram in shared memory by atomicAdd, output packed, written from scratch for kt-tui's corpus
#define NBINS 256

__global__ void equalize_hist(const unsigned char *src, int pitch, int width, int height, int nimages,
                              unsigned char *dst)
{
    __shared__ unsigned int hist[NBINS];
    __shared__ unsigned char lut[NBINS];
    const int b = blockIdx.x;
    if (b >= nimages)
        return;
    const int npix = width * height;
    const unsigned char *img = src + (size_t)b * height * pitch;
    for (int v = threadIdx.x; v < NBINS; v += blockDim.x)
        hist[v] = 0;
    __syncthreads();
    for (int i = threadIdx.x; i < npix; i += blockDim.x)
        atomicAdd(&hist[img[(size_t)(i / width) * pitch + i % width]], 1u);
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned int cdf = 0;
        unsigned int first = 0;
        for (int v = 0; v < NBINS; ++v) {
            if (first == 0)
                first = hist[v];
            cdf += hist[v];
            const unsigned int span = (unsigned int)npix - first;
            const unsigned long long scaled = (unsigned long long)(cdf - first) * 255u + span / 2;
            lut[v] = span == 0 ? (unsigned char)v : (unsigned char)min(255ull, scaled / span);
        }
    }
    __syncthreads();
    unsigned char *out = dst + (size_t)b * npix;
    for (int i = threadIdx.x; i < npix; i += blockDim.x)
        out[i] = lut[img[(size_t)(i / width) * pitch + i % width]];
}
