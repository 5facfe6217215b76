// shape modelled on: integrating a laser scan into an occupancy grid of log-odds (the inverse sensor model of ROS gmapping / GMapping-style and Cartographer-like GPU mappers, Thrun's occupancy grid mapping): a thread per beam, the beam at angle theta + angle_min + b * angle_inc from the sensor at (ox, oy) metres, cells sampled every resolution metres along it up to min(range, range_max) atomically given l_free, the end cell l_occ when the range is a hit (below range_max), invalid (non-positive) ranges skipped, rows pitch floats apart, a beam stopping where it leaves the width x height map, written from scratch for kt-tui's corpus
__global__ void scan_to_logodds(const float *ranges, int nbeams, float angle_min, float angle_inc, float range_max,
                                float ox, float oy, float theta, float resolution, float l_free, float l_occ,
                                float *logodds, int width, int height, int pitch)
{
    const int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= nbeams)
        return;
    const float r = ranges[b];
    if (!(r > 0.0f))
        return;
    const float a = theta + angle_min + b * angle_inc;
    const float dx = cosf(a), dy = sinf(a);
    const float len = fminf(r, range_max);
    const int steps = (int)(len / resolution);
    for (int s = 0; s < steps; ++s) {
        const float d = s * resolution;
        const int cx = (int)floorf((ox + d * dx) / resolution);
        const int cy = (int)floorf((oy + d * dy) / resolution);
        if (cx < 0 || cy < 0 || cx >= width || cy >= height)
            return;
        atomicAdd(&logodds[(size_t)cy * pitch + cx], l_free);
    }
    if (r < range_max) {
        const int cx = (int)floorf((ox + r * dx) / resolution);
        const int cy = (int)floorf((oy + r * dy) / resolution);
        if (cx >= 0 && cy >= 0 && cx < width && cy < height)
            atomicAdd(&logodds[(size_t)cy * pitch + cx], l_occ);
    }
}
