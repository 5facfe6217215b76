// shape modelled on: Parboil's tpacf (two-point angular correlation: for every pair of a data point and a random point, both unit vectors, the dot product falls in the angular bin whose double-precision bounds bracket it, found by binary search; per-block counts in shared memory merged into a 64-bit global histogram with atomics), one thread per data point looping over the random points, bounds ascending here, written from scratch for kt-tui's corpus
// bin b counts the pairs whose dot product d has binb[b] < d <= binb[b + 1]; pairs outside (binb[0], binb[nbins]] are not counted
__global__ void tpacf_pairs(unsigned long long *histogram, const float *data, int n_data, const float *random, int n_random,
                            const double *binb, int nbins)
{
    extern __shared__ unsigned int local[];
    for (int b = threadIdx.x; b < nbins; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n_data) {
        const float xi = data[3 * i], yi = data[3 * i + 1], zi = data[3 * i + 2];
        const double lowest = binb[0], highest = binb[nbins];
        for (int j = 0; j < n_random; j++) {
            const double dot = (double)xi * random[3 * j] + (double)yi * random[3 * j + 1] + (double)zi * random[3 * j + 2];
            if (dot <= lowest || dot > highest)
                continue;
            int lo = 0, hi = nbins;
            while (hi - lo > 1) {
                const int mid = (lo + hi) / 2;
                if (dot > binb[mid])
                    lo = mid;
                else
                    hi = mid;
            }
            atomicAdd(&local[lo], 1u);
        }
    }
    __syncthreads();
    for (int b = threadIdx.x; b < nbins; b += blockDim.x)
        if (local[b] > 0)
            atomicAdd(&histogram[b], (unsigned long long)local[b]);
}
