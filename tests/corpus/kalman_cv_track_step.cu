// shape modelled on: a batched constant-velocity Kalman filter step over tracked objects (SORT's and DeepSORT's KalmanBoxTracker, filterpy's KalmanFilter predict / update, the GPU multi-object trackers of DeepStream's NvMultiObjectTracker): a thread per track, the state (x, y, vx, vy) a float4, a 4 x 4 covariance of 16 floats a track, predict by dt with process noise q on the diagonal, then for the tracks a detection matched (a byte flag) the update with a float2 position of noise r through the 2 x 2 innovation inverse, state and covariance written back, written from scratch for kt-tui's corpus
__global__ void kalman_cv_step(float4 *state, float *cov, const float2 *meas, const unsigned char *matched, int ntracks,
                               float dt, float q, float r)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= ntracks)
        return;
    float4 s = state[t];
    float *pt = cov + (size_t)t * 16;
    float P[16], FP[16];
    for (int i = 0; i < 16; ++i)
        P[i] = pt[i];
    s.x += dt * s.z;
    s.y += dt * s.w;
    // F P, then (F P) F^T + q I; F adds dt times the velocity rows / columns to the position ones
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
            FP[i * 4 + j] = P[i * 4 + j] + (i < 2 ? dt * P[(i + 2) * 4 + j] : 0.0f);
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
            P[i * 4 + j] = FP[i * 4 + j] + (j < 2 ? dt * FP[i * 4 + j + 2] : 0.0f) + (i == j ? q : 0.0f);
    if (matched[t]) {
        const float2 z = meas[t];
        const float s00 = P[0] + r, s01 = P[1], s10 = P[4], s11 = P[5] + r;
        const float idet = 1.0f / (s00 * s11 - s01 * s10);
        const float i00 = s11 * idet, i01 = -s01 * idet, i10 = -s10 * idet, i11 = s00 * idet;
        float G[8];
        for (int i = 0; i < 4; ++i) {
            G[i * 2] = P[i * 4] * i00 + P[i * 4 + 1] * i10;
            G[i * 2 + 1] = P[i * 4] * i01 + P[i * 4 + 1] * i11;
        }
        const float y0 = z.x - s.x, y1 = z.y - s.y;
        s.x += G[0] * y0 + G[1] * y1;
        s.y += G[2] * y0 + G[3] * y1;
        s.z += G[4] * y0 + G[5] * y1;
        s.w += G[6] * y0 + G[7] * y1;
        for (int i = 0; i < 16; ++i)
            FP[i] = P[i];
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j)
                P[i * 4 + j] = FP[i * 4 + j] - G[i * 2] * FP[j] - G[i * 2 + 1] * FP[4 + j];
    }
    state[t] = s;
    for (int i = 0; i < 16; ++i)
        pt[i] = P[i];
}
