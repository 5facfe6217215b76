// shape modelled on: a per-row top-k selection by a block (Faiss's BlockSelect with per-thread queues merged in shared memory, PyTorch's topk for small k via ATen's sbtopk, TensorFlow's TopKV2 per-row heaps): a block per row of cols floats, rows ld apart, each thread keeping its K = 8 largest (a #define) in a sorted local queue, the queues placed in a static shared buffer of BLOCK = 128 (a #define) queues, merged pairwise down a tree, values and column indices of the row's K largest written, written from scratch for kt-tui's corpus
#define K 8
#define BLOCK 128

__global__ void topk_rows(const float *x, int rows, int cols, int ld, float *vals, int *idx)
{
    __shared__ float sv[BLOCK * K];
    __shared__ int si[BLOCK * K];
    const int row = blockIdx.x;
    if (row >= rows)
        return;
    const float *xr = x + (size_t)row * ld;
    float qv[K];
    int qi[K];
    for (int j = 0; j < K; ++j) {
        qv[j] = -3.0e38f;
        qi[j] = -1;
    }
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float v = xr[c];
        if (v <= qv[K - 1])
            continue;
        int j = K - 1;
        while (j > 0 && qv[j - 1] < v) {
            qv[j] = qv[j - 1];
            qi[j] = qi[j - 1];
            --j;
        }
        qv[j] = v;
        qi[j] = c;
    }
    float *mv = sv + threadIdx.x * K;
    int *mi = si + threadIdx.x * K;
    for (int j = 0; j < K; ++j) {
        mv[j] = qv[j];
        mi[j] = qi[j];
    }
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half >>= 1) {
        if (threadIdx.x < half) {
            const float *ov = sv + (threadIdx.x + half) * K;
            const int *oi = si + (threadIdx.x + half) * K;
            int a = 0, b = 0;
            for (int j = 0; j < K; ++j) {
                if (mv[a] >= ov[b]) {
                    qv[j] = mv[a];
                    qi[j] = mi[a++];
                } else {
                    qv[j] = ov[b];
                    qi[j] = oi[b++];
                }
            }
            for (int j = 0; j < K; ++j) {
                mv[j] = qv[j];
                mi[j] = qi[j];
            }
        }
        __syncthreads();
    }
    if (threadIdx.x == 0)
        for (int j = 0; j < K; ++j) {
            vals[(size_t)row * K + j] = sv[j];
            idx[(size_t)row * K + j] = si[j];
        }
}
