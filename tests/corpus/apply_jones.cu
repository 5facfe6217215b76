// shape modelled on: gain application of radio-interferometry calibration (DP3 / EveryBeam / CASA applycal: the 2x2 coherency matrix of each visibility of baseline (p, q) becomes J_p V J_q^H, with per-station, per-channel Jones matrices picked through the rows' antenna index arrays; visibilities stored row x channel x 4 correlations), one thread per visibility in cuDoubleComplex, written from scratch for kt-tui's corpus
#include <cuComplex.h>

// 2x2 matrices row-major: element (r, c) at 2 * r + c
__global__ void apply_jones(cuDoubleComplex *vis_out, const cuDoubleComplex *vis, const cuDoubleComplex *jones,
                            const int *ant1, const int *ant2, int nrows, int nchan)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= nrows * nchan)
        return;
    int row = v / nchan;
    int chan = v % nchan;
    const cuDoubleComplex *jp = jones + ((size_t)ant1[row] * nchan + chan) * 4;
    const cuDoubleComplex *jq = jones + ((size_t)ant2[row] * nchan + chan) * 4;
    const cuDoubleComplex *in = vis + (size_t)v * 4;
    cuDoubleComplex t[4];
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 2; c++)
            t[2 * r + c] = cuCadd(cuCmul(jp[2 * r], in[c]), cuCmul(jp[2 * r + 1], in[2 + c]));
    cuDoubleComplex *out = vis_out + (size_t)v * 4;
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 2; c++)
            out[2 * r + c] = cuCadd(cuCmul(t[2 * r], cuConj(jq[2 * c])), cuCmul(t[2 * r + 1], cuConj(jq[2 * c + 1])));
}
