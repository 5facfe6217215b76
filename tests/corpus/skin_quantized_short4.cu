// shape modelled on: linear blend skinning of glTF meshes with quantized attributes (KHR_mesh_quantization: POSITION as normalized short4, SNORM16 decoded as max(q / 32767, -1) and scaled by pos_scale, its w unused; JOINTS_0 as ushort4 joint indices; WEIGHTS_0 as normalized uchar4, w / 255; each vertex moved by the weighted sum of its four joints' 3 x 4 matrices, three float4 rows a joint, as the Khronos glTF sample viewer's and three.js's skinning shaders do), one thread per vertex, float4 positions out with w = 1, written from scratch for kt-tui's corpus
__global__ void skin_vertices(const short4 *pos, const ushort4 *joints, const uchar4 *weights, const float4 *joint_rows,
                              int nverts, float pos_scale, float4 *out)
{
    const int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= nverts)
        return;
    const short4 q = pos[v];
    const float px = fmaxf(q.x / 32767.0f, -1.0f) * pos_scale;
    const float py = fmaxf(q.y / 32767.0f, -1.0f) * pos_scale;
    const float pz = fmaxf(q.z / 32767.0f, -1.0f) * pos_scale;
    const ushort4 j = joints[v];
    const uchar4 w = weights[v];
    const unsigned short js[4] = {j.x, j.y, j.z, j.w};
    const unsigned char ws[4] = {w.x, w.y, w.z, w.w};
    float ox = 0.0f, oy = 0.0f, oz = 0.0f;
    for (int k = 0; k < 4; ++k) {
        if (ws[k] == 0)
            continue;
        const float wk = ws[k] / 255.0f;
        const float4 *m = joint_rows + 3 * (size_t)js[k];
        const float4 r0 = m[0], r1 = m[1], r2 = m[2];
        ox += wk * (r0.x * px + r0.y * py + r0.z * pz + r0.w);
        oy += wk * (r1.x * px + r1.y * py + r1.z * pz + r1.w);
        oz += wk * (r2.x * px + r2.y * py + r2.z * pz + r2.w);
    }
    out[v] = make_float4(ox, oy, oz, 1.0f);
}
