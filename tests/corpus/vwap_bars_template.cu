// shape modelled on: volume-weighted average price bars of market-data toolkits (kdb+'s and pandas' VWAP over trade buckets: sum price * volume over sum volume, bar b the trades bar_start[b] .. bar_start[b + 1] - 1, an empty bar given 0), volumes as uint32 share counts, one thread per bar, templated on the price type, written from scratch for kt-tui's corpus
template <typename T>
__global__ void vwap_bars(const T *price, const unsigned int *volume, const int *bar_start, int nbars, T *vwap, unsigned long long *bar_volume)
{
    const int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= nbars)
        return;
    T pv = 0;
    unsigned long long v = 0;
    for (int i = bar_start[b]; i < bar_start[b + 1]; ++i) {
        pv += price[i] * (T)volume[i];
        v += volume[i];
    }
    vwap[b] = v > 0 ? pv / (T)v : (T)0;
    bar_volume[b] = v;
}
