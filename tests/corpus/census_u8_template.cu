// shape modelled on: the census transform of semi-global stereo matchers (libSGM's census cost, NVIDIA VPI's stereo disparity: one bit per neighbour of a WH x WW window, set where the neighbour is darker than the centre, packed into a 64-bit word per pixel; pixels whose window leaves the image get 0), 8-bit images rows pitch bytes apart, the window's height and width template parameters with explicit instantiations, one thread per pixel on a 2-D grid, written from scratch for kt-tui's corpus
template <int WH, int WW>
__global__ void census_transform(const unsigned char *img, int pitch, int width, int height,
                                 unsigned long long *census)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    const int ry = WH / 2;
    const int rx = WW / 2;
    unsigned long long bits = 0;
    if (x >= rx && x < width - rx && y >= ry && y < height - ry) {
        const unsigned char c = img[(size_t)y * pitch + x];
        for (int dy = -ry; dy <= ry; ++dy) {
            const unsigned char *row = img + (size_t)(y + dy) * pitch + x;
            for (int dx = -rx; dx <= rx; ++dx) {
                if (dy == 0 && dx == 0)
                    continue;
                bits = (bits << 1) | (row[dx] < c ? 1ull : 0ull);
            }
        }
    }
    census[(size_t)y * width + x] = bits;
}

template __global__ void census_transform<7, 9>(const unsigned char *, int, int, int, unsigned long long *);
template __global__ void census_transform<5, 5>(const unsigned char *, int, int, int, unsigned long long *);
