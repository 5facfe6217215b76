// shape modelled on: the bit-packed integer decoding of columnar formats (Parquet's and ORC's bit packing as cuDF's and Arrow's unpackers read it: value i the bits bits of the little-endian word stream from bit i * bits, possibly straddling two 32-bit words), plus a frame-of-reference base, one thread per value, written from scratch for kt-tui's corpus
__global__ void bit_unpack(const unsigned int *packed, int n, int bits, unsigned int base, unsigned int *out)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const unsigned long long bit = (unsigned long long)i * bits;
    const int word = (int)(bit / 32);
    const int shift = (int)(bit % 32);
    unsigned long long v = packed[word] >> shift;
    if (shift + bits > 32)
        v |= (unsigned long long)packed[word + 1] << (32 - shift);
    out[i] = base + (unsigned int)(v & ((1ull << bits) - 1));
}
