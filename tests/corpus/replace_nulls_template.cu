// shape modelled on: replacing the null entries of a column by a scalar (RAPIDS cuDF's replace_nulls with a scalar, Arrow's fill_null): template <typename T> with int and double instantiated, a thread per row, validity read from an Arrow-style bitmask of 32-bit words (bit i % 32 of word i / 32, 1 = valid), null rows given fill, written from scratch for kt-tui's corpus
template <typename T>
__global__ void replace_nulls(const T *in, const unsigned int *valid, int n, T fill, T *out)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const bool ok = (valid[i / 32] >> (i % 32)) & 1u;
    out[i] = ok ? in[i] : fill;
}

template __global__ void replace_nulls<int>(const int *, const unsigned int *, int, int, int *);
template __global__ void replace_nulls<double>(const double *, const unsigned int *, int, double, double *);
