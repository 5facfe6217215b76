// shape modelled on: the raw moments m00, m10 and m01 of a thresholded 8-bit image, for a blob's area and centroid (OpenCV's moments with binaryImage, NPP's nppiMoments, the centroiding of spot trackers and star trackers): a 2-D grid with a thread per pixel, rows pitch bytes apart, pixels above thresh counted with their x and y by shared-memory atomics, one set of 64-bit atomicAdds a block into m, written from scratch for kt-tui's corpus
__global__ void mask_moments(const unsigned char *img, int pitch, int width, int height, int thresh, unsigned long long *m)
{
    __shared__ unsigned long long part[3];
    const bool first = threadIdx.x == 0 && threadIdx.y == 0;
    if (first)
        part[0] = part[1] = part[2] = 0;
    __syncthreads();
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height && img[(size_t)y * pitch + x] > thresh) {
        atomicAdd(&part[0], 1ull);
        atomicAdd(&part[1], (unsigned long long)x);
        atomicAdd(&part[2], (unsigned long long)y);
    }
    __syncthreads();
    if (first)
        for (int k = 0; k < 3; ++k)
            atomicAdd(&m[k], part[k]);
}
