// shape modelled on: the fused bias + dropout + residual add after a transformer's attention or MLP projection (Megatron-LM's bias_dropout_add_fused_train, DeepSpeed's fused_bias_dropout_residual, Apex's fused dense epilogues) with a precomputed keep mask: template <typename T> with float and double instantiated, a 2-D grid with x over the hidden columns and y over the rows, out = residual + (mask ? (x + bias[col]) / (1 - p) : 0), written from scratch for kt-tui's corpus
template <typename T>
__global__ void bias_dropout_add(const T *x, const T *bias, const unsigned char *mask, const T *residual, int rows,
                                 int hidden, float p, T *out)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col >= hidden || row >= rows)
        return;
    const size_t i = (size_t)row * hidden + col;
    const T scale = (T)1 / ((T)1 - (T)p);
    const T kept = mask[i] ? (x[i] + bias[col]) * scale : (T)0;
    out[i] = residual[i] + kept;
}

template __global__ void bias_dropout_add<float>(const float *, const float *, const unsigned char *, const float *,
                                                 int, int, float, float *);
template __global__ void bias_dropout_add<double>(const double *, const double *, const unsigned char *,
                                                  const double *, int, int, float, double *);
