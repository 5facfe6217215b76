// shape modelled on: OpenCV's cv::cuda::TemplateMatching with TM_CCORR (its naive CCORR kernel: result(y, x) = sum over the th x tw template of templ(v, u) * image(y + v, x + u), the result (rows - th + 1) x (cols - tw + 1)), the template staged by each block in dynamic shared memory, image rows image_step floats apart and result rows result_step apart, a thread per result pixel on a 2-D grid, written from scratch for kt-tui's corpus
// launched with th * tw floats of dynamic shared memory
__global__ void match_template_ccorr(const float *image, int rows, int cols, int image_step, const float *templ, int th,
                                     int tw, float *result, int result_step)
{
    extern __shared__ float t[];
    const int threads = blockDim.x * blockDim.y;
    for (int e = threadIdx.y * blockDim.x + threadIdx.x; e < th * tw; e += threads)
        t[e] = templ[e];
    __syncthreads();
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x > cols - tw || y > rows - th)
        return;
    float sum = 0.0f;
    for (int v = 0; v < th; ++v) {
        const float *line = image + (size_t)(y + v) * image_step + x;
        for (int u = 0; u < tw; ++u)
            sum += t[v * tw + u] * line[u];
    }
    result[(size_t)y * result_step + x] = sum;
}
