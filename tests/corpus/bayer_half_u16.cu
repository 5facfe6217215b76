// shape modelled on: half-size development of camera raw files (dcraw's / LibRaw's half_size mode, rawpy's postprocess(half_size=True): each 2 x 2 RGGB quad of a 16-bit Bayer mosaic becomes one RGB pixel, the black level subtracted, white-balance gains on red and blue, scaled to the white level and clipped), the mosaic's rows `pitch` bytes apart, one thread per quad on a 2-D grid, written from scratch for kt-tui's corpus
__global__ void bayer_half_rggb(const unsigned short *raw, size_t pitch, int width, int height, int black, int white,
                                float gain_r, float gain_b, unsigned short *rgb)
{
    const int qx = blockIdx.x * blockDim.x + threadIdx.x;
    const int qy = blockIdx.y * blockDim.y + threadIdx.y;
    const int qw = width / 2;
    const int qh = height / 2;
    if (qx >= qw || qy >= qh)
        return;
    const unsigned short *row0 = (const unsigned short *)((const char *)raw + (size_t)(2 * qy) * pitch);
    const unsigned short *row1 = (const unsigned short *)((const char *)raw + (size_t)(2 * qy + 1) * pitch);
    const float scale = 65535.0f / (float)(white - black);
    const float r = max((int)row0[2 * qx] - black, 0) * gain_r;
    const float g = 0.5f * (max((int)row0[2 * qx + 1] - black, 0) + max((int)row1[2 * qx] - black, 0));
    const float b = max((int)row1[2 * qx + 1] - black, 0) * gain_b;
    unsigned short *o = rgb + 3 * ((size_t)qy * qw + qx);
    o[0] = (unsigned short)fminf(r * scale + 0.5f, 65535.0f);
    o[1] = (unsigned short)fminf(g * scale + 0.5f, 65535.0f);
    o[2] = (unsigned short)fminf(b * scale + 0.5f, 65535.0f);
}
