// shape modelled on: brute-force closest-hit ray casting against a triangle soup (the Moller-Trumbore test as OptiX's samples and Aila & Laine's GPU ray-tracing kernels lay the data out: a ray as two float4, (origin, tmin) and (direction, tmax), a triangle as three float4, (v0, edge1, edge2)), one warp per ray, its lanes striding over the triangles and keeping their nearest hit, the (t, triangle) pairs merged across the warp by shuffles with the lower index winning ties; a miss leaves t = tmax and triangle -1, written from scratch for kt-tui's corpus
#define DET_EPS 1e-8f

__global__ void closest_hit(const float4 *ray_orig, const float4 *ray_dir, int nrays, const float4 *tris, int ntris,
                            float *hit_t, int *hit_tri)
{
    const int ray = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (ray >= nrays)
        return;
    const float4 o = ray_orig[ray];
    const float4 d = ray_dir[ray];
    float best = d.w;
    int best_id = -1;
    for (int t = lane; t < ntris; t += 32) {
        const float4 v0 = tris[3 * (size_t)t];
        const float4 e1 = tris[3 * (size_t)t + 1];
        const float4 e2 = tris[3 * (size_t)t + 2];
        const float px = d.y * e2.z - d.z * e2.y, py = d.z * e2.x - d.x * e2.z, pz = d.x * e2.y - d.y * e2.x;
        const float det = e1.x * px + e1.y * py + e1.z * pz;
        if (fabsf(det) < DET_EPS)
            continue;
        const float inv = 1.0f / det;
        const float sx = o.x - v0.x, sy = o.y - v0.y, sz = o.z - v0.z;
        const float u = (sx * px + sy * py + sz * pz) * inv;
        if (u < 0.0f || u > 1.0f)
            continue;
        const float qx = sy * e1.z - sz * e1.y, qy = sz * e1.x - sx * e1.z, qz = sx * e1.y - sy * e1.x;
        const float v = (d.x * qx + d.y * qy + d.z * qz) * inv;
        if (v < 0.0f || u + v > 1.0f)
            continue;
        const float dist = (e2.x * qx + e2.y * qy + e2.z * qz) * inv;
        if (dist > o.w && dist < best) {
            best = dist;
            best_id = t;
        }
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        const float other_t = __shfl_down_sync(0xffffffff, best, offset);
        const int other_id = __shfl_down_sync(0xffffffff, best_id, offset);
        if (other_id >= 0 && (best_id < 0 || other_t < best || (other_t == best && other_id < best_id))) {
            best = other_t;
            best_id = other_id;
        }
    }
    if (lane == 0) {
        hit_t[ray] = best;
        hit_tri[ray] = best_id;
    }
}
