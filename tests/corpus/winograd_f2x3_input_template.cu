// shape modelled on: the input transform of Winograd F(2x2, 3x3) convolution (Lavin and Gray's "Fast Algorithms for Convolutional Neural Networks", as cuDNN's WINOGRAD algorithm and NNPACK stage it): each thread takes one 4 x 4 tile of one channel of one NCHW image (tiles 2 apart, overlapping by 2; padding 1, zeros outside the h x w image), computes V = B^T d B and writes its 16 values to 16 planes laid out [16][c][n][tiles], (h + 1) / 2 by (w + 1) / 2 tiles an image; templated on the element type with float and double instantiations, a thread per tile on x, per channel on y and one block layer per image on z, written from scratch for kt-tui's corpus
template <typename T>
__global__ void winograd_input_tf(const T *in, int n, int c, int h, int w, T *V)
{
    const int tiles_w = (w + 1) / 2;
    const int tiles = (h + 1) / 2 * tiles_w;
    const int tile = blockIdx.x * blockDim.x + threadIdx.x;
    const int ch = blockIdx.y * blockDim.y + threadIdx.y;
    const int img = blockIdx.z;
    if (tile >= tiles || ch >= c || img >= n)
        return;
    const int y0 = 2 * (tile / tiles_w) - 1;
    const int x0 = 2 * (tile % tiles_w) - 1;
    const T *src = in + ((size_t)img * c + ch) * h * w;
    T t[4][4];
    for (int s = 0; s < 4; ++s) {
        T d[4];
        for (int r = 0; r < 4; ++r) {
            const int y = y0 + r, x = x0 + s;
            d[r] = y >= 0 && y < h && x >= 0 && x < w ? src[(size_t)y * w + x] : T(0);
        }
        t[0][s] = d[0] - d[2];
        t[1][s] = d[1] + d[2];
        t[2][s] = d[2] - d[1];
        t[3][s] = d[1] - d[3];
    }
    const size_t plane = (size_t)c * n * tiles;
    T *v = V + ((size_t)ch * n + img) * tiles + tile;
    for (int r = 0; r < 4; ++r) {
        v[(4 * r + 0) * plane] = t[r][0] - t[r][2];
        v[(4 * r + 1) * plane] = t[r][1] + t[r][2];
        v[(4 * r + 2) * plane] = t[r][2] - t[r][1];
        v[(4 * r + 3) * plane] = t[r][1] - t[r][3];
    }
}

template __global__ void winograd_input_tf<float>(const float *, int, int, int, int, float *);
template __global__ void winograd_input_tf<double>(const double *, int, int, int, int, double *);
