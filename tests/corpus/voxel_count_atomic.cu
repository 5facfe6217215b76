// shape modelled on: the point-to-voxel step of LiDAR 3-D detectors (OpenPCDet / mmdet3d / spconv voxelization: point p falls in voxel floor((p - range_min) / voxel_size) on each axis, points outside the gx x gy x gz grid are dropped; a point is a row of point_dim floats, x y z then intensity and more), counting the points of each voxel and summing their intensity with atomics, one thread per point, written from scratch for kt-tui's corpus
__global__ void voxel_count(const float *points, int num_points, int point_dim, float min_x, float min_y,
                            float min_z, float voxel_size, int gx, int gy, int gz, int *counts, float *intensity_sum)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= num_points)
        return;
    const float *p = points + (size_t)i * point_dim;
    const int vx = (int)floorf((p[0] - min_x) / voxel_size);
    const int vy = (int)floorf((p[1] - min_y) / voxel_size);
    const int vz = (int)floorf((p[2] - min_z) / voxel_size);
    if (vx < 0 || vx >= gx || vy < 0 || vy >= gy || vz < 0 || vz >= gz)
        return;
    const size_t v = ((size_t)vz * gy + vy) * gx + vx;
    atomicAdd(&counts[v], 1);
    atomicAdd(&intensity_sum[v], p[3]);
}
