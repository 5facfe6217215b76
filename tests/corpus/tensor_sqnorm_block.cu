// shape modelled on: the per-tensor squared L2 norms behind gradient clipping (PyTorch's clip_grad_norm_ with foreach norms, Apex's multi_tensor_l2norm with per_tensor = True, DeepSpeed's and Megatron's gradient norm kernels): ntensors gradients in rows ld floats apart, a 2-D grid with blockIdx.y naming the tensor and a thread per element on x, a static shared tree reduction of BLOCK = 256 (a #define), each block's sum added by one atomicAdd into that tensor's norm, written from scratch for kt-tui's corpus
#define BLOCK 256

__global__ void tensor_sqnorm(const float *grads, int ld, int len, int ntensors, float *sqnorm)
{
    __shared__ float part[BLOCK];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int t = blockIdx.y;
    float g = 0.0f;
    if (i < len && t < ntensors)
        g = grads[(size_t)t * ld + i];
    part[threadIdx.x] = g * g;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half >>= 1) {
        if (threadIdx.x < half)
            part[threadIdx.x] += part[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0 && t < ntensors)
        atomicAdd(&sqnorm[t], part[0]);
}
