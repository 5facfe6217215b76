// shape modelled on: PolyBench/GPU syrk (C = alpha A A^T + beta C, one thread per element of C), written from scratch for kt-tui's corpus
__global__ void syrk(const float *a, float *c, float alpha, float beta, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n) {
        float acc = c[i * n + j] * beta;
        for (int k = 0; k < m; k++)
            acc += alpha * a[i * m + k] * a[j * m + k];
        c[i * n + j] = acc;
    }
}
