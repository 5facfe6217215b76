// shape modelled on: batched 4 x 4 matrix inversion of graphics and robotics code (GLM's inverse and MESA's gluInvertMatrix by cofactors: the six 2 x 2 minors of the top two rows and of the bottom two, the determinant from their products, the adjugate times 1 / det; a matrix whose |det| is at most eps comes out zero), a matrix as four float4 rows, matrix b of the batch `stride` float4s after matrix b - 1, the inverses packed, one thread per matrix, written from scratch for kt-tui's corpus
__global__ void inverse4x4(const float4 *in, int stride, int batch, float eps, float4 *out, float *det_out)
{
    const int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= batch)
        return;
    const float4 *m = in + (size_t)b * stride;
    const float4 r0 = m[0], r1 = m[1], r2 = m[2], r3 = m[3];
    const float s0 = r0.x * r1.y - r1.x * r0.y, s1 = r0.x * r1.z - r1.x * r0.z;
    const float s2 = r0.x * r1.w - r1.x * r0.w, s3 = r0.y * r1.z - r1.y * r0.z;
    const float s4 = r0.y * r1.w - r1.y * r0.w, s5 = r0.z * r1.w - r1.z * r0.w;
    const float c5 = r2.z * r3.w - r3.z * r2.w, c4 = r2.y * r3.w - r3.y * r2.w;
    const float c3 = r2.y * r3.z - r3.y * r2.z, c2 = r2.x * r3.w - r3.x * r2.w;
    const float c1 = r2.x * r3.z - r3.x * r2.z, c0 = r2.x * r3.y - r3.x * r2.y;
    const float det = s0 * c5 - s1 * c4 + s2 * c3 + s3 * c2 - s4 * c1 + s5 * c0;
    const float k = fabsf(det) > eps ? 1.0f / det : 0.0f;
    float4 *o = out + (size_t)b * 4;
    o[0] = make_float4((r1.y * c5 - r1.z * c4 + r1.w * c3) * k, (-r0.y * c5 + r0.z * c4 - r0.w * c3) * k,
                       (r3.y * s5 - r3.z * s4 + r3.w * s3) * k, (-r2.y * s5 + r2.z * s4 - r2.w * s3) * k);
    o[1] = make_float4((-r1.x * c5 + r1.z * c2 - r1.w * c1) * k, (r0.x * c5 - r0.z * c2 + r0.w * c1) * k,
                       (-r3.x * s5 + r3.z * s2 - r3.w * s1) * k, (r2.x * s5 - r2.z * s2 + r2.w * s1) * k);
    o[2] = make_float4((r1.x * c4 - r1.y * c2 + r1.w * c0) * k, (-r0.x * c4 + r0.y * c2 - r0.w * c0) * k,
                       (r3.x * s4 - r3.y * s2 + r3.w * s0) * k, (-r2.x * s4 + r2.y * s2 - r2.w * s0) * k);
    o[3] = make_float4((-r1.x * c3 + r1.y * c1 - r1.z * c0) * k, (r0.x * c3 - r0.y * c1 + r0.z * c0) * k,
                       (-r3.x * s3 + r3.y * s1 - r3.z * s0) * k, (r2.x * s3 - r2.y * s1 + r2.z * s0) * k);
    det_out[b] = det;
}
