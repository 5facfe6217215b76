// shape modelled on: the echo of an audio delay effect (JUCE's DelayLine / Web Audio's DelayNode with a gain: out = dry + gain * the sample `delay` samples ago, the samples before this buffer kept in a ring of ring_len whose next write position is write_pos), 16-bit PCM saturated, a grid-stride loop over samples, written from scratch for kt-tui's corpus
__global__ void echo_i16(const short *in, int n, const short *ring, int ring_len, int write_pos, int delay, float gain,
                         short *out)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        short past;
        if (i >= delay)
            past = in[i - delay];
        else
            past = ring[(write_pos + i - delay + ring_len) % ring_len];
        const short dry = in[i];
        const int v = dry + __float2int_rn(gain * past);
        out[i] = (short)max(-32768, min(32767, v));
    }
}
