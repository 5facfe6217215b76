// shape modelled on: the anti-diagonal wavefront of GPU Smith-Waterman local alignment (CUDASW++'s and the wavefront of Rodinia's nw: every cell (i, j) with i + j = diag depends only on the two diagonals before, so one launch per diagonal updates its cells in parallel), linear gap penalty, the score matrix (m + 1) rows ld ints apart with row and column 0 the zero border, the best score kept with atomicMax, one thread per row of the query, written from scratch for kt-tui's corpus
__global__ void sw_antidiagonal(const unsigned char *a, const unsigned char *b, int m, int n, int ld, int diag,
                                int match, int mismatch, int gap, int *H, int *best)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
    if (i > m)
        return;
    const int j = diag - i;
    if (j < 1 || j > n)
        return;
    const int s = a[i - 1] == b[j - 1] ? match : mismatch;
    int h = H[(size_t)(i - 1) * ld + (j - 1)] + s;
    h = max(h, H[(size_t)(i - 1) * ld + j] - gap);
    h = max(h, H[(size_t)i * ld + (j - 1)] - gap);
    h = max(h, 0);
    H[(size_t)i * ld + j] = h;
    atomicMax(best, h);
}
