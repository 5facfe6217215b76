// shape modelled on: one level of the reversible LeGall 5/3 wavelet of JPEG 2000 coders along the rows of a tile (OpenJPEG's opj_dwt_encode_1, nvJPEG2000's forward DWT: predict d[i] = x[2i+1] - floor((x[2i] + x[2i+2]) / 2), update s[i] = x[2i] + floor((d[i-1] + d[i] + 2) / 4), symmetric extension at both ends), integer samples, rows ld apart, the low band then the high band written to the same place of out's row, x across a row's len / 2 pairs and y across the rows, written from scratch for kt-tui's corpus
__device__ int predict53(const int *row, int k, int len)
{
    const int right = 2 * k + 2 < len ? row[2 * k + 2] : row[2 * k];
    return row[2 * k + 1] - ((row[2 * k] + right) >> 1);
}

__global__ void dwt53_rows(const int *x, int ld, int rows, int len, int *out)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    const int half = len / 2;
    if (i >= half || r >= rows)
        return;
    const int *row = x + (size_t)r * ld;
    const int d = predict53(row, i, len);
    const int dl = i > 0 ? predict53(row, i - 1, len) : d;
    int *o = out + (size_t)r * ld;
    o[i] = row[2 * i] + ((dl + d + 2) >> 2);
    o[half + i] = d;
}
