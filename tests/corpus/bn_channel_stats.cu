// shape modelled on: PyTorch batch_norm_collect_statistics_kernel (training-mode BatchNorm2d statistics of an N x C x HW input: one block per channel, its threads over the channel's N * HW values, which lie in N runs C * HW apart; a block reduction of the sum and the sum of squares in dynamic shared memory), written from scratch for kt-tui's corpus
// launched with one block per channel and a power-of-two block; 2 * blockDim.x floats of shared memory
__global__ void bn_channel_stats(const float *__restrict__ input, float *__restrict__ mean, float *__restrict__ invstd,
                                 int N, int C, int HW, float epsilon)
{
    extern __shared__ float shm[];
    float *ssum = shm;
    float *ssq = shm + blockDim.x;
    int c = blockIdx.x;
    int count = N * HW;
    float s = 0.0f, sq = 0.0f;
    for (int i = threadIdx.x; i < count; i += blockDim.x) {
        int n = i / HW;
        int p = i % HW;
        float v = input[((size_t)n * C + c) * HW + p];
        s += v;
        sq += v * v;
    }
    ssum[threadIdx.x] = s;
    ssq[threadIdx.x] = sq;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) {
            ssum[threadIdx.x] += ssum[threadIdx.x + stride];
            ssq[threadIdx.x] += ssq[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        float m = ssum[0] / count;
        float var = ssq[0] / count - m * m;
        mean[c] = m;
        invstd[c] = rsqrtf(var + epsilon);
    }
}
