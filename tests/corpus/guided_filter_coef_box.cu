// shape modelled on: the coefficient pass of the guided image filter (He, Sun and Tang's guided filter as OpenCV's ximgproc::guidedFilter and MATLAB's imguidedfilter compute it with box means: a = cov(I, p) / (var(I) + eps), b = mean(p) - a * mean(I) over a (2r + 1) x (2r + 1) window): a thread per pixel of float guide and input images whose rows are pitch floats apart, the window clamped at the borders (replicated edges), a and b written packed, written from scratch for kt-tui's corpus
__global__ void guided_coef(const float *guide, const float *src, int width, int height, int pitch, int r, float eps,
                            float *a, float *b)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    float si = 0.0f, sp = 0.0f, sip = 0.0f, sii = 0.0f;
    for (int dy = -r; dy <= r; ++dy) {
        const int yy = min(max(y + dy, 0), height - 1);
        const float *gi = guide + (size_t)yy * pitch;
        const float *pi = src + (size_t)yy * pitch;
        for (int dx = -r; dx <= r; ++dx) {
            const int xx = min(max(x + dx, 0), width - 1);
            const float iv = gi[xx];
            const float pv = pi[xx];
            si += iv;
            sp += pv;
            sip += iv * pv;
            sii += iv * iv;
        }
    }
    const float inv = 1.0f / (float)((2 * r + 1) * (2 * r + 1));
    const float mi = si * inv;
    const float mp = sp * inv;
    const float var = sii * inv - mi * mi;
    const float cov = sip * inv - mi * mp;
    const float ak = cov / (var + eps);
    a[(size_t)y * width + x] = ak;
    b[(size_t)y * width + x] = mp - ak * mi;
}
