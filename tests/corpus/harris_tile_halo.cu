// shape modelled on: the Harris corner response (OpenCV's cornerHarris and cv::cuda::createHarrisCorner: det(M) - k trace(M)^2 of the structure tensor M, here of centred-difference gradients summed over a 3 x 3 window) as a tiled kernel in the manner of NVIDIA's convolution samples: each BX x BY block stages its tile of the float image with a halo of R = 2 (the border replicated) in shared memory, then the gradient products over the tile and a halo of 1, then sums them over the window; source rows `pitch` bytes apart, the response written packed, written from scratch for kt-tui's corpus
#define BX 32
#define BY 8
#define R 2

__global__ void harris_response(const float *img, size_t pitch, int width, int height, float k, float *response)
{
    __shared__ float tile[BY + 2 * R][BX + 2 * R];
    __shared__ float gxx[BY + 2][BX + 2];
    __shared__ float gyy[BY + 2][BX + 2];
    __shared__ float gxy[BY + 2][BX + 2];
    const int x0 = blockIdx.x * BX - R;
    const int y0 = blockIdx.y * BY - R;
    for (int j = threadIdx.y; j < BY + 2 * R; j += BY)
        for (int i = threadIdx.x; i < BX + 2 * R; i += BX) {
            const int x = min(max(x0 + i, 0), width - 1);
            const int y = min(max(y0 + j, 0), height - 1);
            tile[j][i] = ((const float *)((const char *)img + y * pitch))[x];
        }
    __syncthreads();
    for (int j = threadIdx.y; j < BY + 2; j += BY)
        for (int i = threadIdx.x; i < BX + 2; i += BX) {
            const float dx = 0.5f * (tile[j + 1][i + 2] - tile[j + 1][i]);
            const float dy = 0.5f * (tile[j + 2][i + 1] - tile[j][i + 1]);
            gxx[j][i] = dx * dx;
            gyy[j][i] = dy * dy;
            gxy[j][i] = dx * dy;
        }
    __syncthreads();
    const int x = blockIdx.x * BX + threadIdx.x;
    const int y = blockIdx.y * BY + threadIdx.y;
    if (x >= width || y >= height)
        return;
    float a = 0.0f, b = 0.0f, c = 0.0f;
    for (int dj = 0; dj < 3; ++dj)
        for (int di = 0; di < 3; ++di) {
            a += gxx[threadIdx.y + dj][threadIdx.x + di];
            b += gyy[threadIdx.y + dj][threadIdx.x + di];
            c += gxy[threadIdx.y + dj][threadIdx.x + di];
        }
    response[(size_t)y * width + x] = a * b - c * c - k * (a + b) * (a + b);
}
