// shape modelled on: TPC-H query 1 as GPU SQL engines run it (HeavyDB's and BlazingSQL's perfect-hash group-by over dictionary-encoded columns, the Q1 kernels of GPU database papers): a thread per lineitem row, rows shipped after the cutoff day dropped, the group returnflag * 2 + linestatus of the codes (A / N / R and F / O), sum(quantity), sum(extendedprice), sum(extendedprice * (1 - discount)) and sum(extendedprice * (1 - discount) * (1 + tax)) atomically added into agg[4 * group ..] and the row counted into count[group], written from scratch for kt-tui's corpus
__global__ void q1_aggregate(const int *shipdate, const unsigned char *returnflag, const unsigned char *linestatus,
                             const float *quantity, const float *extendedprice, const float *discount,
                             const float *tax, int nrows, int cutoff, double *agg, unsigned long long *count)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nrows || shipdate[i] > cutoff)
        return;
    const int g = returnflag[i] * 2 + linestatus[i];
    const double price = extendedprice[i];
    const double disc_price = price * (1.0 - discount[i]);
    atomicAdd(&agg[4 * g + 0], (double)quantity[i]);
    atomicAdd(&agg[4 * g + 1], price);
    atomicAdd(&agg[4 * g + 2], disc_price);
    atomicAdd(&agg[4 * g + 3], disc_price * (1.0 + tax[i]));
    atomicAdd(&count[g], 1ULL);
}
