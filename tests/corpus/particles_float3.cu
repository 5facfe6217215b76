// shape modelled on: NVIDIA cuda-samples particles integrateSystem (float3 positions in a box with bounce), written from scratch for kt-tui's corpus
__global__ void bounce(float3 *pos, float3 *vel, int count, float dt, float box)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    float3 p = pos[i], v = vel[i];
    p.x += v.x * dt; p.y += v.y * dt; p.z += v.z * dt;
    if (p.x > box) { p.x = box; v.x = -v.x; }
    if (p.x < -box) { p.x = -box; v.x = -v.x; }
    if (p.y > box) { p.y = box; v.y = -v.y; }
    if (p.y < -box) { p.y = -box; v.y = -v.y; }
    if (p.z > box) { p.z = box; v.z = -v.z; }
    if (p.z < -box) { p.z = -box; v.z = -v.z; }
    pos[i] = p;
    vel[i] = v;
}
