// shape modelled on: eigenvalues of symmetric tridiagonal matrices by bisection on Sturm counts (the CUDA samples' eigenvalues, after Demmel, Dhillon and Ren; LAPACK's sstebz): a batch of matrices, matrix b's diagonal at d[b * n] and its off-diagonal at e[b * n] (n - 1 used), a thread per eigenvalue k (x) of a matrix (y); Gershgorin bounds, then halving until the interval is below tol or MAX_ITER halvings, the k-th smallest written to eig[b * n + k], written from scratch for kt-tui's corpus
#define MAX_ITER 60

__device__ int count_below(const float *d, const float *e, int n, float x)
{
    int c = 0;
    float q = 1.0f;
    for (int i = 0; i < n; ++i) {
        const float off = i > 0 ? e[i - 1] * e[i - 1] : 0.0f;
        q = d[i] - x - (i > 0 ? off / (fabsf(q) < 1e-30f ? -1e-30f : q) : 0.0f);
        c += q < 0.0f;
    }
    return c;
}

__global__ void tridiag_eig(const float *d, const float *e, int n, int batch, float tol, float *eig)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    const int b = blockIdx.y * blockDim.y + threadIdx.y;
    if (k >= n || b >= batch)
        return;
    const float *db = d + (size_t)b * n, *eb = e + (size_t)b * n;
    float lo = db[0], hi = db[0];
    for (int i = 0; i < n; ++i) {
        const float r = (i > 0 ? fabsf(eb[i - 1]) : 0.0f) + (i < n - 1 ? fabsf(eb[i]) : 0.0f);
        lo = fminf(lo, db[i] - r);
        hi = fmaxf(hi, db[i] + r);
    }
    for (int it = 0; it < MAX_ITER && hi - lo > tol; ++it) {
        const float mid = 0.5f * (lo + hi);
        if (count_below(db, eb, n, mid) > k)
            hi = mid;
        else
            lo = mid;
    }
    eig[(size_t)b * n + k] = 0.5f * (lo + hi);
}
