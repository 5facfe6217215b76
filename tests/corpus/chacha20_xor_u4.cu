// shape modelled on: the ChaCha20 stream cipher of RFC 8439 (libsodium's crypto_stream_chacha20_ietf_xor, GPU bulk encryptors): a thread per 64-byte block, the state from the four constants, the 8 key words, the block counter counter0 + block and the 3 nonce words, 20 rounds (10 double rounds of quarter rounds), the keystream plus the state XORed into the data, read and written as uint4 (four a block), nbytes / 64 whole blocks (the tail is the host's), written from scratch for kt-tui's corpus
#define ROTL(v, n) (((v) << (n)) | ((v) >> (32 - (n))))
#define QR(a, b, c, d)                                                                                                 \
    a += b, d ^= a, d = ROTL(d, 16), c += d, b ^= c, b = ROTL(b, 12), a += b, d ^= a, d = ROTL(d, 8), c += d, b ^= c, \
        b = ROTL(b, 7)

__global__ void chacha20_xor(const uint4 *in, uint4 *out, long long nbytes, const unsigned int *key,
                             const unsigned int *nonce, unsigned int counter0)
{
    const long long blk = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (blk >= nbytes / 64)
        return;
    unsigned int s[16] = {0x61707865u, 0x3320646eu, 0x79622d32u, 0x6b206574u};
    for (int i = 0; i < 8; ++i)
        s[4 + i] = key[i];
    s[12] = counter0 + (unsigned int)blk;
    s[13] = nonce[0];
    s[14] = nonce[1];
    s[15] = nonce[2];
    unsigned int x[16];
    for (int i = 0; i < 16; ++i)
        x[i] = s[i];
    for (int r = 0; r < 10; ++r) {
        QR(x[0], x[4], x[8], x[12]);
        QR(x[1], x[5], x[9], x[13]);
        QR(x[2], x[6], x[10], x[14]);
        QR(x[3], x[7], x[11], x[15]);
        QR(x[0], x[5], x[10], x[15]);
        QR(x[1], x[6], x[11], x[12]);
        QR(x[2], x[7], x[8], x[13]);
        QR(x[3], x[4], x[9], x[14]);
    }
    for (int q = 0; q < 4; ++q) {
        uint4 v = in[blk * 4 + q];
        v.x ^= x[4 * q] + s[4 * q];
        v.y ^= x[4 * q + 1] + s[4 * q + 1];
        v.z ^= x[4 * q + 2] + s[4 * q + 2];
        v.w ^= x[4 * q + 3] + s[4 * q + 3];
        out[blk * 4 + q] = v;
    }
}
