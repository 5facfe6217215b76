// shape modelled on: fused bias + ReLU kernels of small DL frameworks (2-D grid over batch x features), written from scratch for kt-tui's corpus
__global__ void bias_relu(float *y, const float *x, const float *bias, int batch, int features)
{
    int f = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y * blockDim.y + threadIdx.y;
    if (b < batch && f < features) {
        float v = x[b * features + f] + bias[f];
        y[b * features + f] = v > 0.0f ? v : 0.0f;
    }
}
