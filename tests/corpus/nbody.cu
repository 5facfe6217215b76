// shape modelled on: NVIDIA cuda-samples nbody bodyBodyInteraction / GPU Gems 3 ch.31 (float4 pos with mass in w, all-pairs loop), written from scratch for kt-tui's corpus
__device__ float3 body_interaction(float4 bi, float4 bj, float3 ai, float eps2)
{
    float3 r;
    r.x = bj.x - bi.x;
    r.y = bj.y - bi.y;
    r.z = bj.z - bi.z;
    float dist2 = r.x * r.x + r.y * r.y + r.z * r.z + eps2;
    float inv = rsqrtf(dist2);
    float s = bj.w * inv * inv * inv;
    ai.x += r.x * s;
    ai.y += r.y * s;
    ai.z += r.z * s;
    return ai;
}

__global__ void nbody_accel(const float4 *pos, float3 *accel, int n, float softening)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 me = pos[i];
    float3 a = make_float3(0.0f, 0.0f, 0.0f);
    for (int j = 0; j < n; j++)
        a = body_interaction(me, pos[j], a, softening * softening);
    accel[i] = a;
}
