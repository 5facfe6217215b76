// shape modelled on: KinectFusion's TSDF volume integration (Newcombe et al. 2011; PCL's KinFu tsdf_volume.cu, Open3D's and InfiniTAM's integrate): a thread per (x, y) column of a vx x vy x vz voxel volume walking z, each voxel centre moved into the camera by a 3 x 4 world-to-camera pose (12 floats), projected by the pinhole intrinsics fx, fy, cx, cy into a width x height uint16 depth image scaled by depth_scale metres a unit; where the depth is valid the truncated signed distance (trunc metres) is averaged into tsdf with its weight, capped at max_weight, written from scratch for kt-tui's corpus
__global__ void tsdf_integrate(float *tsdf, float *weight, int vx, int vy, int vz, float voxel, const float *pose,
                               const unsigned short *depth, int width, int height, float fx, float fy, float cx, float cy,
                               float depth_scale, float trunc, float max_weight)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= vx || y >= vy)
        return;
    const float px = (x + 0.5f) * voxel, py = (y + 0.5f) * voxel;
    for (int z = 0; z < vz; ++z) {
        const float pz = (z + 0.5f) * voxel;
        const float X = pose[0] * px + pose[1] * py + pose[2] * pz + pose[3];
        const float Y = pose[4] * px + pose[5] * py + pose[6] * pz + pose[7];
        const float Z = pose[8] * px + pose[9] * py + pose[10] * pz + pose[11];
        if (Z <= 0.0f)
            continue;
        const int u = __float2int_rn(fx * X / Z + cx);
        const int v = __float2int_rn(fy * Y / Z + cy);
        if (u < 0 || u >= width || v < 0 || v >= height)
            continue;
        const unsigned short raw = depth[v * width + u];
        const float sdf = raw * depth_scale - Z;
        if (raw == 0 || sdf < -trunc)
            continue;
        const size_t i = ((size_t)z * vy + y) * vx + x;
        const float w = weight[i];
        tsdf[i] = (tsdf[i] * w + fminf(1.0f, sdf / trunc)) / (w + 1.0f);
        weight[i] = fminf(w + 1.0f, max_weight);
    }
}
