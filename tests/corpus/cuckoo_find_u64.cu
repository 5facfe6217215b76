// shape modelled on: the find of GPU cuckoo hash maps (cuCollections' static_map and WarpCore's single-value tables with cuckoo placement: 64-bit keys, each key in one of its two candidate buckets of BUCKET slots, bucket h at mix64(key, seed_h) mod nbuckets, a bucket's slots filled front to back so an EMPTY slot ends its scan; a hit gives the slot's 32-bit value, a miss NOT_FOUND, the hits counted with one atomicAdd a thread), a grid-stride loop over the queries, written from scratch for kt-tui's corpus
#define BUCKET 4
#define EMPTY 0xffffffffffffffffull
#define NOT_FOUND 0xffffffffu

__device__ __forceinline__ unsigned long long mix64(unsigned long long k, unsigned long long seed)
{
    k ^= seed;
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

__global__ void cuckoo_find(const unsigned long long *table_keys, const unsigned int *table_vals, unsigned int nbuckets,
                            const unsigned long long *queries, int nqueries, unsigned int *out_vals,
                            unsigned int *num_found)
{
    const unsigned long long seeds[2] = {0x2545f4914f6cdd1dull, 0x9e3779b97f4a7c15ull};
    unsigned int found = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nqueries; i += gridDim.x * blockDim.x) {
        const unsigned long long key = queries[i];
        unsigned int v = NOT_FOUND;
        for (int h = 0; h < 2 && v == NOT_FOUND; ++h) {
            const size_t b = mix64(key, seeds[h]) % nbuckets;
            for (int s = 0; s < BUCKET; ++s) {
                const unsigned long long k = table_keys[b * BUCKET + s];
                if (k == key) {
                    v = table_vals[b * BUCKET + s];
                    break;
                }
                if (k == EMPTY)
                    break;
            }
        }
        out_vals[i] = v;
        found += v != NOT_FOUND;
    }
    if (found)
        atomicAdd(num_found, found);
}
