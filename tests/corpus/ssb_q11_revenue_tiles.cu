// shape modelled on: Star Schema Benchmark query 1.1 in the tile-at-a-time style of the Crystal GPU database library (Shanbhag, Madden and Yu's SSB kernels; HeavyDB and cuDF run the same filter-and-sum): a block per tile of blockDim.x * ITEMS lineorder rows (ITEMS a #define), the predicates date_lo <= orderdate < date_hi (yyyymmdd), disc_lo <= discount <= disc_hi and quantity < qty_max, the sum of extendedprice * discount reduced by warp shuffles and a shared array of per-warp sums, one 64-bit atomicAdd a block, written from scratch for kt-tui's corpus
#define ITEMS 4

__global__ void ssb_q11_revenue(const int *lo_orderdate, const int *lo_discount, const int *lo_quantity,
                                const int *lo_extendedprice, int lo_num, int date_lo, int date_hi, int disc_lo,
                                int disc_hi, int qty_max, unsigned long long *revenue)
{
    __shared__ unsigned long long warp_sums[32];
    const int tile = blockIdx.x * blockDim.x * ITEMS;
    unsigned long long sum = 0;
    for (int k = 0; k < ITEMS; ++k) {
        const int i = tile + k * blockDim.x + threadIdx.x;
        if (i >= lo_num)
            break;
        const int date = lo_orderdate[i];
        const int disc = lo_discount[i];
        if (date >= date_lo && date < date_hi && disc >= disc_lo && disc <= disc_hi && lo_quantity[i] < qty_max)
            sum += (unsigned long long)lo_extendedprice[i] * disc;
    }
    for (int off = 16; off > 0; off /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, off);
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    if (lane == 0)
        warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        sum = lane < (blockDim.x + 31) / 32 ? warp_sums[lane] : 0;
        for (int off = 16; off > 0; off /= 2)
            sum += __shfl_down_sync(0xffffffffu, sum, off);
        if (lane == 0 && sum)
            atomicAdd(revenue, sum);
    }
}
