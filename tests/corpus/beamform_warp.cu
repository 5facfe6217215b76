// shape modelled on: GPU beamformers of radio-astronomy pipelines and cuBLAS cgemv with CUBLAS_OP_C (one warp per beam: beam = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize, the lanes stride the antennas summing conj(weight) * sample, then a shuffle reduction of both parts), written from scratch for kt-tui's corpus
#include <cuComplex.h>

// beam b's weights are a row of n_ant values, rows ldw values apart
__global__ void beamform(cuFloatComplex *beams, const cuFloatComplex *weights, const cuFloatComplex *samples,
                         int n_beams, int n_ant, int ldw)
{
    int beam = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    int lane = threadIdx.x % warpSize;
    if (beam >= n_beams)
        return;
    const cuFloatComplex *w = weights + (size_t)beam * ldw;
    float re = 0.0f, im = 0.0f;
    for (int a = lane; a < n_ant; a += warpSize) {
        cuFloatComplex p = cuCmulf(cuConjf(w[a]), samples[a]);
        re += cuCrealf(p);
        im += cuCimagf(p);
    }
    for (int offset = warpSize / 2; offset > 0; offset /= 2) {
        re += __shfl_down_sync(0xffffffff, re, offset);
        im += __shfl_down_sync(0xffffffff, im, offset);
    }
    if (lane == 0)
        beams[beam] = make_cuFloatComplex(re, im);
}
