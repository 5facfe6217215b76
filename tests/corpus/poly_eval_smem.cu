// shape modelled on: CUDA samples / Numba guides that stage small coefficient tables in dynamic shared memory (each block copies ncoef coefficients into `extern __shared__` memory, then every thread evaluates the polynomial by Horner's rule), written from scratch for kt-tui's corpus
// launched with ncoef floats of dynamic shared memory
__global__ void poly_eval(float *y, const float *x, const float *coef, int n, int ncoef)
{
    extern __shared__ float c[];
    for (int k = threadIdx.x; k < ncoef; k += blockDim.x)
        c[k] = coef[k];
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float t = x[i];
        float acc = 0.0f;
        for (int k = ncoef - 1; k >= 0; k--)
            acc = acc * t + c[k];
        y[i] = acc;
    }
}
