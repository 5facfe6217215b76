// Follows the explicit Euler step of an array-of-structures particle update (the float3 position/velocity layout of the CUDA samples' particles and nbody demos).
// Particle p's position and velocity are 3 consecutive floats at 3 * p. A damped velocity under gravity moves each
// particle by dt; each thread takes items_per_thread particles, block_size_x apart.
__global__ void particles(float *pos_out, float *vel_out, const float *pos, const float *vel, float dt, float damping, int n) {
    int base = blockIdx.x * block_size_x * items_per_thread + threadIdx.x;
#pragma unroll
    for (int k = 0; k < items_per_thread; k++) {
        int p = base + k * block_size_x;
        if (p < n) {
            size_t i = (size_t)p * 3;
            float vx = vel[i] * damping;
            float vy = vel[i + 1] * damping;
            float vz = (vel[i + 2] - 9.81f * dt) * damping;
            vel_out[i] = vx;
            vel_out[i + 1] = vy;
            vel_out[i + 2] = vz;
            pos_out[i] = pos[i] + vx * dt;
            pos_out[i + 1] = pos[i + 1] + vy * dt;
            pos_out[i + 2] = pos[i + 2] + vz * dt;
        }
    }
}
