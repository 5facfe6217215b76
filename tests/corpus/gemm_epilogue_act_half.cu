// shape modelled on: the fused GEMM epilogues of cuBLASLt (CUBLASLT_EPILOGUE_BIAS, _RELU_BIAS, _GELU_BIAS) and CUTLASS's LinearCombination-plus-activation functors as TensorRT's fp16 layers use them: D = act(alpha * scale[col] * acc + beta * C + bias[col]) for an m x n float accumulator whose rows lie ld_acc floats apart, a half source C with rows ldc apart (not read when beta is 0, as cuBLAS does), a scale (dequantisation) and a half bias per output channel (column), act a runtime selector (0 identity, 1 ReLU, 2 GELU by its tanh approximation, 3 SiLU), D in half with rows ldd apart, a thread per element of a 2-D grid, written from scratch for kt-tui's corpus
#include <cuda_fp16.h>

__global__ void epilogue_act(const float *acc, int ld_acc, int m, int n, const half *C, int ldc, const float *scale,
                             const half *bias, float alpha, float beta, int act, half *d, int ldd)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col >= n || row >= m)
        return;
    float v = alpha * scale[col] * acc[(size_t)row * ld_acc + col] + __half2float(bias[col]);
    if (beta != 0.0f)
        v += beta * __half2float(C[(size_t)row * ldc + col]);
    if (act == 1)
        v = fmaxf(v, 0.0f);
    else if (act == 2)
        v = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
    else if (act == 3)
        v = v / (1.0f + __expf(-v));
    d[(size_t)row * ldd + col] = __float2half(v);
}
