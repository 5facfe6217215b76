// shape modelled on: column means and variances with a delta degrees of freedom by Welford's update (cuML's stats::meanvar and cuDF's / pandas' DataFrame.var(ddof=...), numpy's var(axis=0, ddof=...), the per-feature statistics of StandardScaler): a thread per column of a row-major double matrix whose rows are ld apart, a loop down the rows updating the running mean and M2, var = M2 / (rows - ddof), written from scratch for kt-tui's corpus
__global__ void column_meanvar(const double *x, int rows, int cols, int ld, int ddof, double *mean, double *var)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols)
        return;
    double m = 0.0, m2 = 0.0;
    for (int r = 0; r < rows; ++r) {
        const double v = x[(size_t)r * ld + c];
        const double d = v - m;
        m += d / (r + 1);
        m2 += d * (v - m);
    }
    mean[c] = m;
    var[c] = m2 / (rows - ddof);
}
