// shape modelled on: cell-averaging CFAR detection of radar signal processing (a range profile's cell is a target when its power exceeds alpha times the mean of `train` cells on each side beyond `guard` guard cells, fewer at the profile's ends), a grid-stride loop over cells with an atomic detection count, written from scratch for kt-tui's corpus
__global__ void cfar_ca(const float *power, int n, int guard, int train, float alpha, unsigned char *detect, int *count)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float sum = 0.0f;
        int cnt = 0;
        for (int k = guard + 1; k <= guard + train; ++k) {
            if (i - k >= 0) {
                sum += power[i - k];
                ++cnt;
            }
            if (i + k < n) {
                sum += power[i + k];
                ++cnt;
            }
        }
        const unsigned char hit = cnt > 0 && power[i] > alpha * sum / cnt;
        detect[i] = hit;
        if (hit)
            atomicAdd(count, 1);
    }
}
