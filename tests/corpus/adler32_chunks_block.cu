// shape modelled on: zlib's adler32 taken per fixed-size chunk of a buffer (the weak block checksum of rsync-style delta sync and block-level deduplication: A = 1 + sum of the bytes, B = chunk + sum of (chunk - i) * byte i, both mod 65521, (B << 16) | A), nbytes / chunk whole chunks (the caller sums a partial tail itself), one block per chunk whose threads sum into shared memory, extern "C" for a driver-API loader, written from scratch for kt-tui's corpus
#define BLOCK 256
#define MOD_ADLER 65521ull

extern "C" __global__ void adler32_chunks(const unsigned char *data, int nbytes, int chunk, unsigned int *sums)
{
    __shared__ unsigned long long sa[BLOCK];
    __shared__ unsigned long long sb[BLOCK];
    const int c = blockIdx.x;
    if (c >= nbytes / chunk)
        return;
    const unsigned char *p = data + (size_t)c * chunk;
    unsigned long long a = 0;
    unsigned long long b = 0;
    for (int i = threadIdx.x; i < chunk; i += blockDim.x) {
        const unsigned long long d = p[i];
        a += d;
        b += (unsigned long long)(chunk - i) * d;
    }
    sa[threadIdx.x] = a;
    sb[threadIdx.x] = b;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            sa[threadIdx.x] += sa[threadIdx.x + half];
            sb[threadIdx.x] += sb[threadIdx.x + half];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        const unsigned long long A = (1 + sa[0]) % MOD_ADLER;
        const unsigned long long B = ((unsigned long long)chunk + sb[0]) % MOD_ADLER;
        sums[c] = (unsigned int)((B << 16) | A);
    }
}
