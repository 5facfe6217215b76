// shape modelled on: one-block-per-row softmax kernels (row = blockIdx.x, threads stride the row, shared-memory max and sum; e.g. llm.c softmax_forward_kernel2 style), written from scratch for kt-tui's corpus
#define WIDTH 128
__global__ void softmax_block_rows(float *out, const float *inp, int N, int C)
{
    __shared__ float shared[WIDTH];
    int row = blockIdx.x;
    int tid = threadIdx.x;
    const float *x = inp + row * C;
    float maxval = -1e30f;
    for (int i = tid; i < C; i += blockDim.x)
        maxval = fmaxf(maxval, x[i]);
    shared[tid] = maxval;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride >= 1; stride /= 2) {
        __syncthreads();
        if (tid < stride)
            shared[tid] = fmaxf(shared[tid], shared[tid + stride]);
    }
    __syncthreads();
    float offset = shared[0];
    float sumval = 0.0f;
    for (int i = tid; i < C; i += blockDim.x)
        sumval += expf(x[i] - offset);
    __syncthreads();
    shared[tid] = sumval;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride >= 1; stride /= 2) {
        __syncthreads();
        if (tid < stride)
            shared[tid] += shared[tid + stride];
    }
    __syncthreads();
    float sum = shared[0];
    for (int i = tid; i < C; i += blockDim.x)
        out[row * C + i] = expf(x[i] - offset) / sum;
}
