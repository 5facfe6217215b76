// shape modelled on: the leaf-level direct interactions of a tree code (Burtscher and Pingali's ECL / LonestarGPU Barnes-Hut, Bonsai's and GADGET's leaf P2P passes, the cell lists of HOOMD-blue with a cutoff): a block per leaf, the leaf's bodies (at most LEAF = 64, a #define) from leaf_start[leaf] to leaf_start[leaf + 1] staged as float4 (x, y, z, mass) in a static shared array, each body summing the softened accelerations of the others closer than the cutoff, written from scratch for kt-tui's corpus
#define LEAF 64

__global__ void leaf_forces(const float4 *body, const int *leaf_start, int nleaves, float rcut2, float eps2,
                            float4 *acc)
{
    __shared__ float4 sh[LEAF];
    const int leaf = blockIdx.x;
    if (leaf >= nleaves)
        return;
    const int b0 = leaf_start[leaf];
    const int cnt = leaf_start[leaf + 1] - b0;
    for (int j = threadIdx.x; j < cnt; j += blockDim.x)
        sh[j] = body[b0 + j];
    __syncthreads();
    for (int i = threadIdx.x; i < cnt; i += blockDim.x) {
        const float4 p = sh[i];
        float ax = 0.0f, ay = 0.0f, az = 0.0f;
        for (int j = 0; j < cnt; ++j) {
            const float4 o = sh[j];
            const float dx = o.x - p.x, dy = o.y - p.y, dz = o.z - p.z;
            const float r2 = dx * dx + dy * dy + dz * dz + eps2;
            if (j != i && r2 < rcut2) {
                const float inv = rsqrtf(r2);
                const float s = o.w * inv * inv * inv;
                ax += dx * s;
                ay += dy * s;
                az += dz * s;
            }
        }
        acc[b0 + i] = make_float4(ax, ay, az, 0.0f);
    }
}
