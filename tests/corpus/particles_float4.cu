// shape modelled on: NVIDIA cuda-samples particles / nbody integrateBodies (float4 position + velocity), written from scratch for kt-tui's corpus
__global__ void integrate(float4 *pos, float4 *vel, float dt, float damping, int numBodies)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < numBodies) {
        float4 p = pos[i];
        float4 v = vel[i];
        v.y -= 9.81f * dt;
        v.x *= damping; v.y *= damping; v.z *= damping;
        p.x += v.x * dt; p.y += v.y * dt; p.z += v.z * dt;
        pos[i] = p;
        vel[i] = v;
    }
}
