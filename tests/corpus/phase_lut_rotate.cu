// shape modelled on: rotating complex baseband samples by per-sample phases through a sine table (liquid-dsp's nco with its sine table, GNU Radio's fxpt_nco and sincos tables, FPGA-style DDS mixers emulated on GPUs): a thread per sample, phases in radians in [0, 2 pi) mapped to a table index of nlut entries of one period of sin (nlut a multiple of 4, the cosine read a quarter period on), re and im rotated by -phase, written from scratch for kt-tui's corpus
__global__ void phase_lut_rotate(const float *re, const float *im, const float *phase, const float *lut, int nlut, int n, float *out_re, float *out_im)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const int k = (int)(phase[i] * (nlut * 0.15915494f));
    const float s = lut[k];
    const float c = lut[(k + nlut / 4) % nlut];
    out_re[i] = re[i] * c + im[i] * s;
    out_im[i] = im[i] * c - re[i] * s;
}
