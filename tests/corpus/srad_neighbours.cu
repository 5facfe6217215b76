// shape modelled on: Rodinia srad_v1 (directional derivatives through neighbour index arrays iN/iS/jW/jE), written from scratch for kt-tui's corpus
__global__ void srad_gradients(float *dN, float *dS, float *dW, float *dE, const float *img, const int *iN,
                               const int *iS, const int *jW, const int *jE, int nrows, int ncols)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= nrows || col >= ncols)
        return;
    int k = row * ncols + col;
    float c = img[k];
    dN[k] = img[iN[row] * ncols + col] - c;
    dS[k] = img[iS[row] * ncols + col] - c;
    dW[k] = img[row * ncols + jW[col]] - c;
    dE[k] = img[row * ncols + jE[col]] - c;
}
