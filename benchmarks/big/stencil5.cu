// Follows the 5-point Jacobi step of the 2-D heat equation (as in NVIDIA's "Finite Difference Methods in CUDA C/C++" and the Jacobi solvers of the CUDA samples).
// out = in + alpha * (sum of the 4 neighbours - 4 * in) on a height x width row-major grid; at the border a missing
// neighbour counts as the cell itself (insulated edges), so every output is written.
__global__ void stencil5(float *out, const float *in, float alpha, int width, int height) {
    int x = blockIdx.x * block_size_x + threadIdx.x;
    int y = blockIdx.y * block_size_y + threadIdx.y;
    if (x >= width || y >= height) {
        return;
    }
    size_t i = (size_t)y * width + x;
    float c = in[i];
    float w = x > 0 ? in[i - 1] : c;
    float e = x < width - 1 ? in[i + 1] : c;
    float n = y > 0 ? in[i - width] : c;
    float s = y < height - 1 ? in[i + width] : c;
    out[i] = c + alpha * (w + e + n + s - 4.0f * c);
}
