// shape modelled on: zero-forcing MIMO equalisation of an OFDM receiver (Sionna's zf_equalizer, srsRAN's zero-forcing channel equaliser for two layers: x = H^-1 y per subcarrier with H its estimated 2 x 2 channel, det = h00 h11 - h01 h10), the received symbols of each OFDM symbol ld complex elements apart (two antennas' nsc subcarriers, rows padded), float2 complex, x across the subcarriers and y across the OFDM symbols, written from scratch for kt-tui's corpus
__device__ __forceinline__ float2 cmul(float2 a, float2 b)
{
    return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

__global__ void zf_equalize_2x2(const float2 *H, const float2 *y, int nsc, int nsym, int ld, float2 *x)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    const int s = blockIdx.y * blockDim.y + threadIdx.y;
    if (k >= nsc || s >= nsym)
        return;
    // H row-major per subcarrier: h00 h01 h10 h11
    const float2 h00 = H[4 * k + 0], h01 = H[4 * k + 1], h10 = H[4 * k + 2], h11 = H[4 * k + 3];
    const float2 a = cmul(h00, h11), b = cmul(h01, h10);
    const float2 det = make_float2(a.x - b.x, a.y - b.y);
    const float dd = det.x * det.x + det.y * det.y;
    const float2 inv = make_float2(det.x / dd, -det.y / dd);
    // antenna 0's subcarriers first in a symbol's row, then antenna 1's
    const float2 y0 = y[(size_t)s * ld + k];
    const float2 y1 = y[(size_t)s * ld + nsc + k];
    const float2 t0 = cmul(h11, y0), u0 = cmul(h01, y1);
    const float2 t1 = cmul(h00, y1), u1 = cmul(h10, y0);
    x[(size_t)s * 2 * nsc + k] = cmul(inv, make_float2(t0.x - u0.x, t0.y - u0.y));
    x[(size_t)s * 2 * nsc + nsc + k] = cmul(inv, make_float2(t1.x - u1.x, t1.y - u1.y));
}
