// shape modelled on: hue, saturation and value adjustment of an RGBA image through HSV (DALI's Hsv operator, torchvision's adjust_hue / adjust_saturation, NPP's nppiRGBToHSV and nppiHSVToRGB): uchar4 pixels in rows src_pitch and dst_pitch bytes apart (cudaMallocPitch), the hue turned by hue_deg degrees, saturation and value scaled and clamped, alpha kept, a thread per pixel on a 2-D grid, written from scratch for kt-tui's corpus
__global__ void hsv_adjust(const uchar4 *src, int src_pitch, uchar4 *dst, int dst_pitch, int width, int height, float hue_deg, float sat, float val)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    const uchar4 p = ((const uchar4 *)((const char *)src + (size_t)y * src_pitch))[x];
    const float r = p.x / 255.0f, g = p.y / 255.0f, b = p.z / 255.0f;
    const float mx = fmaxf(r, fmaxf(g, b)), mn = fminf(r, fminf(g, b)), c = mx - mn;
    float h = 0.0f;
    if (c > 0.0f)
        h = mx == r ? fmodf((g - b) / c + 6.0f, 6.0f) : mx == g ? (b - r) / c + 2.0f : (r - g) / c + 4.0f;
    h = fmodf(h + hue_deg / 60.0f + 12.0f, 6.0f);
    const float v = fminf(mx * val, 1.0f);
    const float s = fminf((mx > 0.0f ? c / mx : 0.0f) * sat, 1.0f);
    const float cc = v * s, xx = cc * (1.0f - fabsf(fmodf(h, 2.0f) - 1.0f)), m = v - cc;
    const int sector = min((int)h, 5);
    float3 o;
    switch (sector) {
    case 0: o = make_float3(cc, xx, 0.0f); break;
    case 1: o = make_float3(xx, cc, 0.0f); break;
    case 2: o = make_float3(0.0f, cc, xx); break;
    case 3: o = make_float3(0.0f, xx, cc); break;
    case 4: o = make_float3(xx, 0.0f, cc); break;
    default: o = make_float3(cc, 0.0f, xx); break;
    }
    uchar4 *row = (uchar4 *)((char *)dst + (size_t)y * dst_pitch);
    row[x] = make_uchar4((unsigned char)__float2int_rn((o.x + m) * 255.0f), (unsigned char)__float2int_rn((o.y + m) * 255.0f),
                         (unsigned char)__float2int_rn((o.z + m) * 255.0f), p.w);
}
