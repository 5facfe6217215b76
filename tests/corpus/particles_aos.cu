// shape modelled on: textbook particle advection (CUDA by Example style AoS xyz arrays), written from scratch for kt-tui's corpus
// positions and velocities stored as x0 y0 z0 x1 y1 z1 ...; one particle per thread
__global__ void advance_particles(float *pos, const float *vel, float dt, int npart)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= npart)
        return;
    for (int d = 0; d < 3; d++) {
        pos[i * 3 + d] = pos[i * 3 + d] + dt * vel[i * 3 + d];
    }
}
