// shape modelled on: PyTorch aten/src/ATen/native/cuda/SoftMax.cu cunn_SoftMaxForward (one block per row, block-wide max and sum in dynamic shared memory), written from scratch for kt-tui's corpus
// red holds one float per thread (dynamic shared memory); blockDim.x is a power of two
__global__ void softmax_block(float *out, const float *in, int rows, int cols)
{
    extern __shared__ float red[];
    int row = blockIdx.x;
    if (row >= rows)
        return;
    const float *x = in + (size_t)row * cols;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        m = fmaxf(m, x[c]);
    red[threadIdx.x] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s)
            red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();
    float sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        sum += expf(x[c] - m);
    red[threadIdx.x] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s)
            red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    float inv = 1.0f / red[0];
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        out[(size_t)row * cols + c] = expf(x[c] - m) * inv;
}
