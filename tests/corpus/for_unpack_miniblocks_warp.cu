// shape modelled on: decoding frame-of-reference bit-packed integers in miniblocks of 32 values (Parquet's DELTA_BINARY_PACKED miniblocks as cuDF's Parquet reader unpacks them, nvCOMP's bitpack / cascaded decompressor): a warp per miniblock (blockDim.y miniblocks a block), miniblock m's bit width widths[m] in 0 .. 32 and its reference refs[m], its 32 values packed LSB-first in the slot of 32 words at words + m * 32 (room for the widest), lane i taking bits [i * w, i * w + w) across at most two words, out[m * 32 + i] = refs[m] + value for the nvalues values (the last miniblock partly used), written from scratch for kt-tui's corpus
__global__ void for_unpack_miniblocks(const unsigned int *words, const unsigned char *widths, const long long *refs,
                                      int nminis, int nvalues, long long *out)
{
    const int m = blockIdx.x * blockDim.y + threadIdx.y;
    if (m >= nminis)
        return;
    const int lane = threadIdx.x;
    const unsigned int w = widths[m];
    const unsigned int *slot = words + (size_t)m * 32;
    const unsigned int bit = lane * w;
    unsigned long long chunk = slot[bit >> 5];
    if ((bit & 31) + w > 32)
        chunk |= (unsigned long long)slot[(bit >> 5) + 1] << 32;
    const unsigned long long mask = (1ull << w) - 1;
    const long long value = (long long)((chunk >> (bit & 31)) & mask);
    const int i = m * 32 + lane;
    if (i < nvalues)
        out[i] = refs[m] + value;
}
