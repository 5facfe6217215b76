// shape modelled on: the frame features of voice-activity detectors and audio front ends (librosa.feature.rms and zero_crossing_rate, WebRTC-style VAD energy: frames of frame_len samples hop apart, (n - frame_len) / hop + 1 of them, each frame's mean square energy and its count of sign changes), 16-bit PCM, one block per frame reducing with warp shuffles and a shared array of warp partials, written from scratch for kt-tui's corpus
__global__ void frame_energy_zcr(const short *pcm, int n, int frame_len, int hop, float *energy, int *crossings)
{
    __shared__ float warp_e[32];
    __shared__ int warp_z[32];
    const int f = blockIdx.x;
    const int nframes = (n - frame_len) / hop + 1;
    if (f >= nframes)
        return;
    const short *s = pcm + (size_t)f * hop;
    float e = 0.0f;
    int z = 0;
    for (int i = threadIdx.x; i < frame_len; i += blockDim.x) {
        const float v = s[i] * (1.0f / 32768.0f);
        e += v * v;
        if (i > 0)
            z += (s[i] >= 0) != (s[i - 1] >= 0);
    }
    for (int off = 16; off > 0; off /= 2) {
        e += __shfl_xor_sync(0xffffffffu, e, off);
        z += __shfl_xor_sync(0xffffffffu, z, off);
    }
    const int warp = threadIdx.x / 32;
    if (threadIdx.x % 32 == 0) {
        warp_e[warp] = e;
        warp_z[warp] = z;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < blockDim.x / 32; ++w) {
            e += warp_e[w];
            z += warp_z[w];
        }
        energy[f] = e / frame_len;
        crossings[f] = z;
    }
}
