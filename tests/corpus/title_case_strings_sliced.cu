// shape modelled on: title-casing a strings column (cuDF's strings::title and capitalize, ASCII only): a thread per string of a sliced column, string i's bytes from offsets[offset + i] to offsets[offset + i + 1] of the parent's chars, a letter after a non-letter upper-cased and other letters lower-cased, written to the same places of out (the sizes do not change), written from scratch for kt-tui's corpus
__global__ void title_case(const char *chars, const int *offsets, int offset, int nstrings, char *out)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nstrings)
        return;
    const int begin = offsets[offset + i];
    const int end = offsets[offset + i + 1];
    bool word_start = true;
    for (int k = begin; k < end; ++k) {
        unsigned char c = (unsigned char)chars[k];
        const bool upper = c >= 'A' && c <= 'Z';
        const bool lower = c >= 'a' && c <= 'z';
        if (lower && word_start)
            c -= 32;
        else if (upper && !word_start)
            c += 32;
        word_start = !(upper || lower);
        out[k] = (char)c;
    }
}
