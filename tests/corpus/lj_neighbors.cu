// shape modelled on: SHOC MD (Lennard-Jones forces over a column-major neighbour list, positions as float4), written from scratch for kt-tui's corpus
__global__ void lj_force(float4 *force, const float4 *position, const int *neighbors, int natoms, int max_neighbors,
                         float cutsq, float lj1, float lj2)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= natoms)
        return;
    float4 p = position[i];
    float fx = 0.0f, fy = 0.0f, fz = 0.0f;
    for (int j = 0; j < max_neighbors; j++) {
        int other = neighbors[j * natoms + i];
        float4 q = position[other];
        float dx = p.x - q.x, dy = p.y - q.y, dz = p.z - q.z;
        float r2 = dx * dx + dy * dy + dz * dz;
        if (r2 < cutsq && r2 > 0.0f) {
            float r2inv = 1.0f / r2;
            float r6inv = r2inv * r2inv * r2inv;
            float s = r2inv * r6inv * (lj1 * r6inv - lj2);
            fx += dx * s;
            fy += dy * s;
            fz += dz * s;
        }
    }
    force[i] = make_float4(fx, fy, fz, 0.0f);
}
