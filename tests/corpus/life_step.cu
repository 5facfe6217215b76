// shape modelled on: Conway's game of life CUDA kernels (neighbour count with edge checks, e.g. def.gsus GameOfLife kernel_getneighbours), written from scratch for kt-tui's corpus
// cells are 0 (dead) or 1 (alive), width x height, no wrap-around
__global__ void life_step(const int *cells, int *next, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    int alive = 0;
    for (int dy = -1; dy <= 1; dy++) {
        for (int dx = -1; dx <= 1; dx++) {
            if (dx == 0 && dy == 0) continue;
            int nx = x + dx, ny = y + dy;
            if (nx >= 0 && nx < width && ny >= 0 && ny < height)
                alive += cells[ny * width + nx];
        }
    }
    int me = cells[y * width + x];
    next[y * width + x] = (alive == 3 || (me == 1 && alive == 2)) ? 1 : 0;
}
