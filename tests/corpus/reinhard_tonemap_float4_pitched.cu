// shape modelled on: Reinhard's global tone-mapping operator (Reinhard et al. 2002 as pbrt's imgtool, OpenCV's TonemapReinhard and GPU HDR viewers apply it): a 2-D grid over the pixels of a float4 RGBA radiance image, the luminance scaled by key / log_avg_lum, compressed by L (1 + L / l_white^2) / (1 + L), the colour scaled by the ratio, gamma-encoded with inv_gamma, written as uchar4 with the alpha kept, input and output rows hdr_pitch and ldr_pitch pixels apart, written from scratch for kt-tui's corpus
__global__ void reinhard_global(const float4 *hdr, int hdr_pitch, uchar4 *ldr, int ldr_pitch, int width, int height,
                                float key, float log_avg_lum, float l_white, float inv_gamma)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    const float4 c = hdr[(size_t)y * hdr_pitch + x];
    const float lum = 0.2126f * c.x + 0.7152f * c.y + 0.0722f * c.z;
    const float lm = key / log_avg_lum * lum;
    const float ld = lm * (1.0f + lm / (l_white * l_white)) / (1.0f + lm);
    const float s = lum > 0.0f ? ld / lum : 0.0f;
    const float r = powf(fminf(c.x * s, 1.0f), inv_gamma);
    const float g = powf(fminf(c.y * s, 1.0f), inv_gamma);
    const float b = powf(fminf(c.z * s, 1.0f), inv_gamma);
    const float al = fminf(fmaxf(c.w, 0.0f), 1.0f);
    ldr[(size_t)y * ldr_pitch + x] = make_uchar4((unsigned char)(255.0f * r + 0.5f), (unsigned char)(255.0f * g + 0.5f),
                                                 (unsigned char)(255.0f * b + 0.5f), (unsigned char)(255.0f * al + 0.5f));
}
