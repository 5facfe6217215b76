// shape modelled on: the volume-rendering pass of NeRF renderers over packed samples (nerfacc's accumulate along rays, instant-ngp's composite: a ray's samples ray_offsets[r] .. ray_offsets[r + 1] in CSR order, alpha = 1 - exp(-sigma dt), weight = T alpha, the colour, the depth at t and the opacity accumulated front to back until the transmittance T falls below early_stop_T), colours as float3, one thread per ray, written from scratch for kt-tui's corpus
__global__ void composite_rays(int nrays, const int *ray_offsets, const float *sigmas, const float3 *rgbs,
                               const float *ts, const float *dts, float early_stop_T, float3 *out_rgb,
                               float *out_depth, float *out_opacity)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= nrays)
        return;
    const int begin = ray_offsets[r];
    const int end = ray_offsets[r + 1];
    float T = 1.0f;
    float3 rgb = make_float3(0.0f, 0.0f, 0.0f);
    float depth = 0.0f;
    for (int s = begin; s < end; ++s) {
        const float alpha = 1.0f - expf(-sigmas[s] * dts[s]);
        const float w = T * alpha;
        const float3 c = rgbs[s];
        rgb.x += w * c.x;
        rgb.y += w * c.y;
        rgb.z += w * c.z;
        depth += w * ts[s];
        T *= 1.0f - alpha;
        if (T < early_stop_T)
            break;
    }
    out_rgb[r] = rgb;
    out_depth[r] = depth;
    out_opacity[r] = 1.0f - T;
}
