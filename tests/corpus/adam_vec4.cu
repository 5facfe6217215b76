// shape modelled on: fused Adam optimizer steps with vectorized memory access (NVIDIA Apex's multi_tensor_adam, PyTorch's fused Adam: a thread updates four parameters through float4 loads and stores; the n % 4 left over go to the first threads), written from scratch for kt-tui's corpus
__device__ float adam_one(float p, float g, float &m, float &v, float lr, float beta1, float beta2, float eps,
                          float bias_c1, float bias_c2)
{
    m = beta1 * m + (1.0f - beta1) * g;
    v = beta2 * v + (1.0f - beta2) * g * g;
    const float denom = sqrtf(v / bias_c2) + eps;
    return p - lr * (m / bias_c1) / denom;
}

__global__ void adam_step_vec4(float *param, const float *grad, float *exp_avg, float *exp_avg_sq, int n, float lr,
                               float beta1, float beta2, float eps, float bias_c1, float bias_c2)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int n4 = n / 4;
    if (i < n4) {
        float4 p = reinterpret_cast<float4 *>(param)[i];
        const float4 g = reinterpret_cast<const float4 *>(grad)[i];
        float4 m = reinterpret_cast<float4 *>(exp_avg)[i];
        float4 v = reinterpret_cast<float4 *>(exp_avg_sq)[i];
        p.x = adam_one(p.x, g.x, m.x, v.x, lr, beta1, beta2, eps, bias_c1, bias_c2);
        p.y = adam_one(p.y, g.y, m.y, v.y, lr, beta1, beta2, eps, bias_c1, bias_c2);
        p.z = adam_one(p.z, g.z, m.z, v.z, lr, beta1, beta2, eps, bias_c1, bias_c2);
        p.w = adam_one(p.w, g.w, m.w, v.w, lr, beta1, beta2, eps, bias_c1, bias_c2);
        reinterpret_cast<float4 *>(param)[i] = p;
        reinterpret_cast<float4 *>(exp_avg)[i] = m;
        reinterpret_cast<float4 *>(exp_avg_sq)[i] = v;
    }
    if (i < n % 4) {
        const int t = 4 * n4 + i;
        param[t] = adam_one(param[t], grad[t], exp_avg[t], exp_avg_sq[t], lr, beta1, beta2, eps, bias_c1, bias_c2);
    }
}
