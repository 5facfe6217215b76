// shape modelled on: PointNet++'s ball query (pointnet2 ops / mmcv ball_query: for each of the m centres of a batch item, the first nsample of its n points within radius, the rest of the list repeating the first found), one thread per centre on x and one block row per batch item on y, written from scratch for kt-tui's corpus
__global__ void ball_query(const float *xyz, const float *centres, int b, int n, int m, float radius, int nsample,
                           int *idx)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int bi = blockIdx.y;
    if (j >= m || bi >= b)
        return;
    const float *c = centres + ((size_t)bi * m + j) * 3;
    const float *p = xyz + (size_t)bi * n * 3;
    int *out = idx + ((size_t)bi * m + j) * nsample;
    const float r2 = radius * radius;
    int cnt = 0;
    for (int k = 0; k < n && cnt < nsample; ++k) {
        const float dx = p[3 * k] - c[0];
        const float dy = p[3 * k + 1] - c[1];
        const float dz = p[3 * k + 2] - c[2];
        if (dx * dx + dy * dy + dz * dz < r2)
            out[cnt++] = k;
    }
    for (int l = cnt; l < nsample; ++l)
        out[l] = cnt ? out[0] : -1;
}
