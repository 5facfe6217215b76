__global__ void rounds(const unsigned int *keys, int n, int nrounds, unsigned int *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int h = keys[i];
    for (int k = 0; k < nrounds; ++k)
        h = h * 2654435761u + (unsigned int)k;
    out[i] = h;
}
