// shape modelled on: character counts of a UTF-8 string column in Arrow layout (cuDF's strings::count_characters / str.len(), Arrow's utf8_length compute kernel, Polars' str.len_chars): a thread per string, its bytes from offsets[i] to offsets[i + 1] of the chars buffer, code points counted as the bytes that are not continuation bytes (10xxxxxx), a null (bit i of the LSB-first validity bitmap clear) giving -1, written from scratch for kt-tui's corpus
__global__ void utf8_lengths(const unsigned char *chars, const int *offsets, const unsigned char *valid, int nstrings,
                             int *lengths)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nstrings)
        return;
    if (!((valid[i >> 3] >> (i & 7)) & 1)) {
        lengths[i] = -1;
        return;
    }
    int n = 0;
    for (int b = offsets[i]; b < offsets[i + 1]; ++b)
        n += (chars[b] & 0xC0) != 0x80;
    lengths[i] = n;
}
