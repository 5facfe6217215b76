// shape modelled on: Rodinia pathfinder (one row of the dynamic programme: the cheapest of three neighbours above plus this row's cost), written from scratch for kt-tui's corpus
__global__ void path_step(int *next, const int *prev, const int *wall, int cols, int row)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= cols)
        return;
    int left = prev[max(x - 1, 0)];
    int up = prev[x];
    int right = prev[min(x + 1, cols - 1)];
    next[x] = wall[row * cols + x] + min(up, min(left, right));
}
