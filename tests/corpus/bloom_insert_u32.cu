// shape modelled on: the insert of GPU Bloom filters (cuCollections' bloom_filter and the Bloom filters of GPU database joins: each key sets nhashes bits of an nbits-bit array, bit j at (h1 + j * h2) mod nbits from two 32-bit mixes of the key, Kirsch-Mitzenmacher double hashing; the bits this insert turned on counted, the filter's fill from which its false-positive rate is estimated), keys over the whole 32-bit range, one thread per key, the bits set by atomicOr on 32-bit words, written from scratch for kt-tui's corpus
__device__ __forceinline__ unsigned int mix32(unsigned int x, unsigned int seed)
{
    x ^= seed;
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

__global__ void bloom_insert(const unsigned int *keys, int nkeys, int nhashes, unsigned int nbits, unsigned int *bits,
                             unsigned int *nset)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nkeys)
        return;
    const unsigned int key = keys[i];
    const unsigned int h1 = mix32(key, 0x9e3779b9u);
    const unsigned int h2 = mix32(key, 0x85ebca6bu) | 1u;
    unsigned int turned_on = 0;
    for (int j = 0; j < nhashes; ++j) {
        const unsigned int bit = (h1 + (unsigned int)j * h2) % nbits;
        const unsigned int mask = 1u << (bit % 32);
        const unsigned int old = atomicOr(&bits[bit / 32], mask);
        turned_on += (old & mask) == 0;
    }
    if (turned_on > 0)
        atomicAdd(nset, turned_on);
}
