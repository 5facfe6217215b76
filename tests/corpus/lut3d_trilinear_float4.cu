// shape modelled on: applying a 3-D colour look-up table with trilinear interpolation (FFmpeg's lut3d filter, OpenColorIO's and DaVinci-style .cube LUTs, OpenCV's and NPP's 3-D LUT transforms): a thread per pixel, float3 RGB in [0, 1] scaled to a cube of lsize points a side held as float4 entries (red fastest, then green, then blue), the cell's eight corners blended, float3 out, written from scratch for kt-tui's corpus
__global__ void lut3d_apply(const float3 *rgb, int npix, const float4 *__restrict__ lut, int lsize, float3 *out)
{
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npix)
        return;
    const float3 c = rgb[p];
    const float scale = (float)(lsize - 1);
    const float fr = c.x * scale, fg = c.y * scale, fb = c.z * scale;
    const int r0 = min((int)fr, lsize - 2), g0 = min((int)fg, lsize - 2), b0 = min((int)fb, lsize - 2);
    const float tr = fr - r0, tg = fg - g0, tb = fb - b0;
    float3 acc = make_float3(0.0f, 0.0f, 0.0f);
    for (int db = 0; db < 2; ++db)
        for (int dg = 0; dg < 2; ++dg)
            for (int dr = 0; dr < 2; ++dr) {
                const float wgt = (dr ? tr : 1.0f - tr) * (dg ? tg : 1.0f - tg) * (db ? tb : 1.0f - tb);
                const float4 e = lut[((size_t)(b0 + db) * lsize + (g0 + dg)) * lsize + (r0 + dr)];
                acc.x += wgt * e.x;
                acc.y += wgt * e.y;
                acc.z += wgt * e.z;
            }
    out[p] = acc;
}
