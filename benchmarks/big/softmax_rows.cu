// Follows the row-wise softmax forward kernels of llm.c (softmax_forward_kernel: one block per row, a shared-memory max and sum reduction).
// out[r][c] = exp(in[r][c] - max of row r) / sum over row r of exp(in[r][j] - max), for a rows x cols row-major matrix.
__global__ void softmax_rows(float *out, const float *in, int rows, int cols) {
    __shared__ float part[block_size_x];
    int r = blockIdx.x;
    if (r >= rows) {
        return;
    }
    const float *row = in + (size_t)r * cols;
    float m = __int_as_float(0xff800000);  // -infinity, with no header needed (NVRTC)
    for (int c = threadIdx.x; c < cols; c += block_size_x) {
        m = fmaxf(m, row[c]);
    }
    part[threadIdx.x] = m;
    __syncthreads();
    for (int s = block_size_x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s) {
            part[threadIdx.x] = fmaxf(part[threadIdx.x], part[threadIdx.x + s]);
        }
        __syncthreads();
    }
    m = part[0];
    __syncthreads();
    float sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += block_size_x) {
        sum += expf(row[c] - m);
    }
    part[threadIdx.x] = sum;
    __syncthreads();
    for (int s = block_size_x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s) {
            part[threadIdx.x] += part[threadIdx.x + s];
        }
        __syncthreads();
    }
    float inv = 1.0f / part[0];
    for (int c = threadIdx.x; c < cols; c += block_size_x) {
        out[(size_t)r * cols + c] = expf(row[c] - m) * inv;
    }
}
