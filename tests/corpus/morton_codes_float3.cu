// shape modelled on: the Morton-code step of linear BVH construction (Karras's "Maximizing Parallelism in the Construction of BVHs, Octrees, and k-d Trees" and NVIDIA's "Thinking Parallel, Part III"; the LBVH builders that follow them): the scene's box, left in device memory by the reduction before it as two float3 corners (lo, hi), maps each point, a float4 (x, y, z, unused), into the unit cube; each axis is quantised to 10 bits and the three interleaved into a 30-bit Morton code, the point's index written beside it for the sort that follows, a grid-stride loop over n points, written from scratch for kt-tui's corpus
__device__ unsigned int spread_bits(unsigned int v)
{
    v = (v | (v << 16)) & 0x030000FFu;
    v = (v | (v << 8)) & 0x0300F00Fu;
    v = (v | (v << 4)) & 0x030C30C3u;
    v = (v | (v << 2)) & 0x09249249u;
    return v;
}

__device__ unsigned int quantise(float p, float lo, float hi)
{
    return (unsigned int)fminf(fmaxf((p - lo) / (hi - lo) * 1024.0f, 0.0f), 1023.0f);
}

__global__ void morton_codes(const float4 *pts, int n, const float3 *box, unsigned int *codes, int *ids)
{
    const float3 lo = box[0];
    const float3 hi = box[1];
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const float4 p = pts[i];
        const unsigned int cx = spread_bits(quantise(p.x, lo.x, hi.x));
        const unsigned int cy = spread_bits(quantise(p.y, lo.y, hi.y));
        const unsigned int cz = spread_bits(quantise(p.z, lo.z, hi.z));
        codes[i] = (cx << 2) | (cy << 1) | cz;
        ids[i] = i;
    }
}
