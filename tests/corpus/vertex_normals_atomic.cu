// shape modelled on: area-weighted vertex normals of a triangle mesh (PyTorch3D's Meshes.verts_normals, Open3D's ComputeVertexNormals: each face's unnormalised normal, the cross product of two edges and so twice its area, added into its three corners' normals; a later pass normalises), vertices as float3, faces as int3 vertex indices, one thread per face scattering with atomicAdd, written from scratch for kt-tui's corpus
__global__ void accumulate_vertex_normals(const float3 *verts, const int3 *faces, int nfaces, float *vnormals)
{
    const int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= nfaces)
        return;
    const int3 tri = faces[f];
    const float3 a = verts[tri.x];
    const float3 b = verts[tri.y];
    const float3 c = verts[tri.z];
    const float ux = b.x - a.x, uy = b.y - a.y, uz = b.z - a.z;
    const float vx = c.x - a.x, vy = c.y - a.y, vz = c.z - a.z;
    const float nx = uy * vz - uz * vy;
    const float ny = uz * vx - ux * vz;
    const float nz = ux * vy - uy * vx;
    const int corner[3] = {tri.x, tri.y, tri.z};
    for (int k = 0; k < 3; ++k) {
        atomicAdd(&vnormals[3 * corner[k] + 0], nx);
        atomicAdd(&vnormals[3 * corner[k] + 1], ny);
        atomicAdd(&vnormals[3 * corner[k] + 2], nz);
    }
}
