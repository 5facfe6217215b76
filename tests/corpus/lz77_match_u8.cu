// shape modelled on: the match search of GPU LZ77 compressors (nvcomp's LZ4 and deflate back ends, CULZSS: for each position of the input the longest earlier match that starts within `window` bytes before it, at least MIN_MATCH and at most MAX_MATCH bytes long, the nearest one among equally long matches, never reaching past the input's end), bytes in, match lengths and distances out as 16-bit unsigned (0 and 0 where none is long enough), one thread per position, written from scratch for kt-tui's corpus
#define MIN_MATCH 4
#define MAX_MATCH 258

__global__ void lz77_longest_match(const unsigned char *in, int n, int window, unsigned short *match_len,
                                   unsigned short *match_dist)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const int limit = min(MAX_MATCH, n - i);
    const int first = max(0, i - window);
    int best_len = 0;
    int best_dist = 0;
    for (int j = i - 1; j >= first; --j) {
        int len = 0;
        while (len < limit && in[j + len] == in[i + len])
            ++len;
        if (len > best_len) {
            best_len = len;
            best_dist = i - j;
            if (len == limit)
                break;
        }
    }
    if (best_len < MIN_MATCH) {
        best_len = 0;
        best_dist = 0;
    }
    match_len[i] = (unsigned short)best_len;
    match_dist[i] = (unsigned short)best_dist;
}
