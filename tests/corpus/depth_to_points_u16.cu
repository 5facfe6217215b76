// shape modelled on: depth-image back-projection of RGB-D camera libraries (librealsense's deprojection / Open3D's point cloud from a depth image: a uint16 depth in sensor units times depth_scale metres, x = (u - cx) z / fx, y = (v - cy) z / fy; depth rows `pitch` bytes apart; each point a record of `point_stride` floats, x y z valid then padding as PCL's aligned points), one thread per pixel on a 2-D grid, written from scratch for kt-tui's corpus
__global__ void depth_to_points(const unsigned short *depth, int width, int height, int pitch, float depth_scale,
                                float fx, float fy, float cx, float cy, float *points, int point_stride)
{
    const int u = blockIdx.x * blockDim.x + threadIdx.x;
    const int v = blockIdx.y * blockDim.y + threadIdx.y;
    if (u >= width || v >= height)
        return;
    const unsigned short d = depth[(size_t)v * (pitch / 2) + u];
    const float z = d * depth_scale;
    float *p = points + ((size_t)v * width + u) * point_stride;
    p[0] = (u - cx) * z / fx;
    p[1] = (v - cy) * z / fy;
    p[2] = z;
    p[3] = d > 0 ? 1.0f : 0.0f;
}
