// shape modelled on: k-mer counting of genome assemblers and counters (Jellyfish, KMC, the GPU counters of Gerbil: bases as 2-bit codes, a k-mer the 2k-bit word of its bases, a window holding an N skipped), bases as one byte each, the code in the low two bits and the high bit set on a masked base (an N or a soft-masked repeat), counts hashed into a table by modulo, a grid-stride loop over the window starts, written from scratch for kt-tui's corpus
__global__ void kmer_count(const unsigned char *seq, int n, int k, int table_size, unsigned int *counts)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i <= n - k; i += gridDim.x * blockDim.x) {
        unsigned int code = 0;
        bool valid = true;
        for (int j = 0; j < k; ++j) {
            const unsigned char b = seq[i + j];
            if (b & 0x80) {
                valid = false;
                break;
            }
            code = (code << 2) | (b & 3u);
        }
        if (valid)
            atomicAdd(&counts[code % table_size], 1u);
    }
}
