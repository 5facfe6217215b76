// shape modelled on: the semi-Lagrangian advection of Stam's "Stable Fluids" as NVIDIA's fluidsGL sample and GPU Gems chapter 38 run it: each cell traces back along its own velocity, q_out(x, y) = q sampled bilinearly at (x, y) - dt / dx * v(x, y) on a periodic nx x ny grid, q and q_out floats with rows q_pitch and out_pitch apart, the velocity float2 with rows v_pitch float2s apart, a thread per cell on a 2-D grid, written from scratch for kt-tui's corpus
__global__ void advect(const float *q, int q_pitch, const float2 *vel, int v_pitch, int nx, int ny, float dt_dx,
                       float *q_out, int out_pitch)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny)
        return;
    const float2 v = vel[(size_t)y * v_pitch + x];
    float px = x - dt_dx * v.x;
    float py = y - dt_dx * v.y;
    px -= nx * floorf(px / nx);
    py -= ny * floorf(py / ny);
    // rounding can leave px at nx or a hair below 0: the cell is clamped
    const int x0 = max(min((int)px, nx - 1), 0);
    const int y0 = max(min((int)py, ny - 1), 0);
    const float fx = px - x0, fy = py - y0;
    const int x1 = x0 + 1 == nx ? 0 : x0 + 1;
    const int y1 = y0 + 1 == ny ? 0 : y0 + 1;
    const float *r0 = q + (size_t)y0 * q_pitch;
    const float *r1 = q + (size_t)y1 * q_pitch;
    const float top = r0[x0] + fx * (r0[x1] - r0[x0]);
    const float bottom = r1[x0] + fx * (r1[x1] - r1[x0]);
    q_out[(size_t)y * out_pitch + x] = top + fy * (bottom - top);
}
