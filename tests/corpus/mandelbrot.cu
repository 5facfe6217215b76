// shape modelled on: DCGroothuizenDijkema/Fractal src/cu_mandelbrot.cu and CUDA mandelbrot teaching kernels (escape-time loop), written from scratch for kt-tui's corpus
__global__ void mandelbrot(int *iters, int width, int height, float x0, float y0, float scale, int max_iter)
{
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= width || py >= height) return;
    float cr = x0 + px * scale;
    float ci = y0 + py * scale;
    float zr = 0.0f, zi = 0.0f;
    int it = 0;
    while (it < max_iter && zr * zr + zi * zi < 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        it++;
    }
    iters[py * width + px] = it;
}
