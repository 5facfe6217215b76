// shape modelled on: naive row-wise softmax kernels (one thread per row, max / exp-sum / normalise), written from scratch for kt-tui's corpus
__global__ void softmax_rows(const float *in, float *out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float *row = in + r * cols;
    float m = row[0];
    for (int c = 1; c < cols; c++) m = fmaxf(m, row[c]);
    float s = 0.0f;
    for (int c = 0; c < cols; c++) s += expf(row[c] - m);
    for (int c = 0; c < cols; c++) out[r * cols + c] = expf(row[c] - m) / s;
}
