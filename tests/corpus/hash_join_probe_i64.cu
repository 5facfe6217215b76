// shape modelled on: the probe side of a GPU hash join (RAPIDS cuDF's hash_join probe over cuCollections' open-addressing map, the Crystal library's and HeavyDB's join probes, DuckDB-style linear probing): a thread per probe row, int64 keys hashed by a Fibonacci multiply into a table of table_size slots (a power of two, masked), linear probing for at most table_size slots, a negative stored key an empty slot, null probe rows flagged by bytes, the matching build row or -1 written, written from scratch for kt-tui's corpus
__global__ void hash_join_probe(const long long *probe_keys, const unsigned char *probe_valid, int n,
                                const long long *table_keys, const int *table_rows, int table_size, int *match)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    if (!probe_valid[i]) {
        match[i] = -1;
        return;
    }
    const long long k = probe_keys[i];
    const unsigned long long h = (unsigned long long)k * 0x9E3779B97F4A7C15ull;
    const int mask = table_size - 1;
    int slot = (int)(h >> 32) & mask;
    int found = -1;
    for (int p = 0; p < table_size; ++p) {
        const long long t = table_keys[slot];
        if (t == k) {
            found = table_rows[slot];
            break;
        }
        if (t < 0)
            break;
        slot = (slot + 1) & mask;
    }
    match[i] = found;
}
