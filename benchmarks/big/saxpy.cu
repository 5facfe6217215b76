// Follows the SAXPY of NVIDIA's "An Easy Introduction to CUDA C and C++" with a grid-stride loop ("CUDA Pro Tip: Write Flexible Kernels with Grid-Stride Loops").
// out = a * x + y over n floats; each thread takes about items_per_thread elements, block_size_x apart per block.
__global__ void saxpy(float *out, const float *x, const float *y, float a, int n) {
    int stride = gridDim.x * block_size_x;
    for (int i = blockIdx.x * block_size_x + threadIdx.x; i < n; i += stride) {
        out[i] = a * x[i] + y[i];
    }
}
