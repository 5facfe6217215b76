// shape modelled on: rotating a batch of point clouds by one unit quaternion each (PyTorch3D's quaternion_apply, the rotation augmentations of OpenPCDet and Open3D's PointCloud::Rotate), the clouds [batch][npoints][stride] floats whose first three are x, y, z and the rest features (intensity, ring ...), quaternions float4 (x, y, z vector part, w scalar, Eigen's order), v' = v + 2 w (u x v) + 2 u x (u x v), rotated xyz written packed, x across the points and y across the clouds, written from scratch for kt-tui's corpus
__global__ void rotate_points(const float *pts, int npoints, int batch, int stride, const float4 *quat, float *out)
{
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    const int b = blockIdx.y * blockDim.y + threadIdx.y;
    if (p >= npoints || b >= batch)
        return;
    const size_t i = (size_t)b * npoints + p;
    const float *v = pts + i * stride;
    const float4 q = quat[b];
    const float vx = v[0], vy = v[1], vz = v[2];
    // t = 2 (u x v)
    const float tx = 2.0f * (q.y * vz - q.z * vy);
    const float ty = 2.0f * (q.z * vx - q.x * vz);
    const float tz = 2.0f * (q.x * vy - q.y * vx);
    out[i * 3 + 0] = vx + q.w * tx + (q.y * tz - q.z * ty);
    out[i * 3 + 1] = vy + q.w * ty + (q.z * tx - q.x * tz);
    out[i * 3 + 2] = vz + q.w * tz + (q.x * ty - q.y * tx);
}
